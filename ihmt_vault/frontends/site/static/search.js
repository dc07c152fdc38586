/* IHMT Vault (ihmt site serve): the vault's own search, in the search box and on the Diagnose page;
   the Set up screen (agents connected, the vault's health, the commands that fix what is missing).
   Interface words are marks gui.js translates (data-ihmt-t); what memories say goes in as text. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.fetch || !window.URL) return;
  var endpoint = new URL("search", script.src), root = new URL("../", script.src);
  var setupEndpoint = new URL("setup", script.src);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null && text !== "") e.textContent = String(text);
    return e;
  }
  function words(key, n) {   // gui.js's table (English when it is missing)
    var w = window.ihmtI18n ? window.ihmtI18n.t(key, n) : null;
    return w === null ? key : w;
  }
  function say(tag, cls, key, n) {   // an element holding interface words: translated again on a switch
    var e = el(tag, cls, words(key, n));
    e.setAttribute("data-ihmt-t", key);
    if (n !== undefined && n !== null) e.setAttribute("data-ihmt-v", String(n));
    return e;
  }

  function hitView(h, full) {
    var li = el("li", "ihmt-hit"), a = el("a", "ihmt-hit__title", h.title);
    a.href = new URL(h.url, root).href;
    li.appendChild(a);
    if (h.status === "outdated") li.appendChild(say("span", "ihmt-badge ihmt-outdated", "badge.outdated"));
    if (h.status === "archived") li.appendChild(say("span", "ihmt-badge ihmt-archived", "badge.archived"));
    li.appendChild(el("div", "ihmt-hit__path", "/" + h.path));
    var meta = el("div", "ihmt-hit__meta");
    if (h.date) meta.append(h.date, " · ");
    meta.append(say("span", "", "answer.score"), " " + h.score);
    if (full) meta.append(" · ", say("span", "", "answer.via"), " " + h.via);
    li.appendChild(meta);
    (h.notices || []).forEach(function (n) { li.appendChild(el("div", "ihmt-hit__notice", n)); });
    if (full && h.snippet) li.appendChild(el("div", "ihmt-hit__snippet", h.snippet));
    return li;
  }

  function answerView(r, full) {
    var box = el("div", "ihmt-answer");
    if (r.error) { box.appendChild(el("div", "ihmt-answer__why", r.error)); return box; }
    var head = el("div", "ihmt-answer__head");
    head.appendChild(say("span", "ihmt-status ihmt-status--" + r.status, "answer." + r.status));
    var sure = el("span", "ihmt-answer__confidence");
    sure.append(say("span", "", "answer.confidence"), ": ", say("span", "", "confidence." + r.confidence));
    if (r.margin) sure.append(" (", say("span", "", "answer.margin", r.margin), ")");
    head.appendChild(sure);
    head.appendChild(say("span", "ihmt-answer__source", "answer.source"));
    box.appendChild(head);
    if (r.message) box.appendChild(el("div", "ihmt-answer__why", r.message));
    if (r.archived_fallback) box.appendChild(say("div", "ihmt-answer__why", "answer.archive"));
    if (r.status === "ambiguous" && !r.message) box.appendChild(say("div", "ihmt-answer__why", "answer.tie"));
    var list = el("ol", "ihmt-hits"), shown = r.status === "ambiguous" && r.candidates.length ? r.candidates : r.hits;
    shown.slice(0, full ? 20 : 3).forEach(function (h) { list.appendChild(hitView(h, full)); });
    box.appendChild(list);
    if (!full) {
      var more = say("a", "ihmt-answer__more", "answer.more");
      var to = new URL("diagnose/", root);
      to.searchParams.set("ask", r.query);   // not "q": Material's own search opens on ?q=
      more.href = to.href;
      box.appendChild(more);
    }
    return box;
  }

  var seq = 0;
  function ask(q, clue, done) {
    var id = ++seq, url = new URL(endpoint);
    url.searchParams.set("q", q);
    if (clue) url.searchParams.set("clue", clue);
    fetch(url.href, {headers: {"Accept": "application/json"}})
      .then(function (response) { return response.json(); })
      .then(function (data) { if (id === seq) done(data); })
      .catch(function () {});
  }

  var input = document.querySelector('[data-md-component="search-query"]');
  var results = document.querySelector('[data-md-component="search-result"]');
  if (input && results) {
    var slot = el("div", "ihmt-answer-slot"), timer = null;
    results.insertBefore(slot, results.firstChild);
    input.addEventListener("input", function () {
      clearTimeout(timer);
      var q = input.value.trim();
      if (!q) { slot.replaceChildren(); return; }
      timer = setTimeout(function () { ask(q, null, function (r) { slot.replaceChildren(answerView(r, false)); }); }, 250);
    });
  }

  var page = document.getElementById("ihmt-diagnose");
  if (page) {
    var form = el("form", "ihmt-diagnose__form"), q = el("input"), clue = el("input"), go = say("button", "md-button", "diagnose.search");
    q.type = "search"; q.name = "q"; q.placeholder = words("diagnose.query"); q.setAttribute("data-ihmt-p", "diagnose.query");
    clue.type = "text"; clue.name = "clue"; clue.placeholder = words("diagnose.clue"); clue.setAttribute("data-ihmt-p", "diagnose.clue");
    go.type = "submit";
    [q, clue, go].forEach(function (x) { form.appendChild(x); });
    var out = el("div", "ihmt-diagnose__out");
    page.replaceChildren(form, out);
    var run = function () { if (q.value.trim()) ask(q.value.trim(), clue.value.trim(), function (r) { out.replaceChildren(answerView(r, true)); }); };
    form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
    var given = new URLSearchParams(window.location.search);
    q.value = given.get("ask") || ""; clue.value = given.get("clue") || "";
    run();
  }

  var setup = document.getElementById("ihmt-setup");
  if (setup) {
    fetch(setupEndpoint.href, {headers: {"Accept": "application/json"}})
      .then(function (response) { return response.json(); })
      .then(function (data) { setup.replaceChildren.apply(setup, setupView(data)); })
      .catch(function () { setup.replaceChildren(say("p", "", "setup.unavailable")); });
  }

  function command(text) {
    var pre = el("pre", "ihmt-command"), code = el("code", "", text);
    pre.appendChild(code);
    return pre;
  }

  function setupView(r) {
    if (r.error || !r.agents) return [say("p", "", "setup.unavailable")];
    var parts = [];
    var where = el("p", "ihmt-setup__vault");
    where.append(say("strong", "", "setup.vault"), ": ", el("code", "", r.vault));
    parts.push(where);
    parts.push(say("h2", "", "setup.agents"));
    if (!r.agents.some(function (a) { return a.state === "connected" || a.state === "partial"; })) {
      parts.push(say("p", "ihmt-setup__none", "setup.none"));
    }
    var wrap = el("div", "ihmt-agents"), table = el("table"), head = el("tr");   // a bare table: the theme styles it
    ["setup.agent", "setup.scope", "setup.state", "setup.config", "setup.fix"].forEach(function (k) { head.appendChild(say("th", "", k)); });
    var thead = el("thead"), tbody = el("tbody");
    thead.appendChild(head);
    r.agents.forEach(function (a) {
      var row = el("tr", "ihmt-agent ihmt-agent--" + a.state);
      row.setAttribute("data-agent", a.agent);
      row.appendChild(el("td", "ihmt-agent__name", a.label));
      row.appendChild(say("td", "", "scope." + a.scope));
      var state = el("td", "ihmt-agent__state");
      state.appendChild(say("span", "ihmt-state ihmt-state--" + a.state, "setup." + a.state));
      if (a.state === "other_vault" && a.vault) state.append(" ", el("code", "", a.vault));
      a.missing.forEach(function (m) { state.append(" · ", say("span", "", "setup.missing"), ": ", say("span", "", "setup." + m)); });
      row.appendChild(state);
      var config = el("td");
      config.appendChild(el("code", "", a.config));
      row.appendChild(config);
      var fix = el("td", "ihmt-agent__fix");
      if (a.command) fix.appendChild(el("code", "ihmt-command", a.command));
      row.appendChild(fix);
      tbody.appendChild(row);
    });
    table.append(thead, tbody);
    wrap.appendChild(table);
    parts.push(wrap);
    parts.push(say("h2", "", "setup.health"));
    var health = el("div", "ihmt-health");
    if (r.health.healthy) health.appendChild(say("p", "ihmt-health__ok", "setup.healthy"));
    else {
      health.appendChild(say("p", "ihmt-health__bad", "setup.problems"));
      var list = el("ul", "ihmt-problems");
      r.health.problems.forEach(function (p) {
        var li = el("li", "ihmt-problem");
        li.append(el("code", "", p.kind), " ");
        if (p.path) li.append(el("span", "ihmt-problem__path", p.path), ": ");
        if (p.message) li.append(el("span", "", p.message), " ");
        li.append("[", say("span", "", p.repairable ? "setup.repairable" : "setup.needs_you"), "]");
        list.appendChild(li);
      });
      health.appendChild(list);
      if (r.health.command) { health.appendChild(say("p", "", "setup.repair")); health.appendChild(command(r.health.command)); }
    }
    parts.push(health);
    return parts;
  }
})();
