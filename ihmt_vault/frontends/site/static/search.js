/* IHMT Vault (ihmt site serve): the vault's own search, in the search box and on the Diagnose page. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.fetch || !window.URL) return;
  var endpoint = new URL("search", script.src), root = new URL("../", script.src);
  var LABEL = {found: "FOUND", ambiguous: "AMBIGUOUS", not_found: "NOT FOUND"};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null && text !== "") e.textContent = String(text);
    return e;
  }

  function hitView(h, full) {
    var li = el("li", "ihmt-hit"), a = el("a", "ihmt-hit__title", h.title);
    a.href = new URL(h.url, root).href;
    li.appendChild(a);
    if (h.status === "outdated") li.appendChild(el("span", "ihmt-badge ihmt-outdated", "OUTDATED"));
    if (h.status === "archived") li.appendChild(el("span", "ihmt-badge ihmt-archived", "ARCHIVED"));
    li.appendChild(el("div", "ihmt-hit__path", "/" + h.path));
    var meta = [h.date, "score " + h.score].concat(full ? ["via " + h.via] : []).filter(Boolean);
    li.appendChild(el("div", "ihmt-hit__meta", meta.join(" · ")));
    (h.notices || []).forEach(function (n) { li.appendChild(el("div", "ihmt-hit__notice", n)); });
    if (full && h.snippet) li.appendChild(el("div", "ihmt-hit__snippet", h.snippet));
    return li;
  }

  function answerView(r, full) {
    var box = el("div", "ihmt-answer");
    if (r.error) { box.appendChild(el("div", "ihmt-answer__why", r.error)); return box; }
    var head = el("div", "ihmt-answer__head");
    head.appendChild(el("span", "ihmt-status ihmt-status--" + r.status, LABEL[r.status] || r.status));
    head.appendChild(el("span", "ihmt-answer__confidence", "confidence: " + r.confidence +
      (r.margin ? " (best ×" + r.margin + " the next)" : "")));
    head.appendChild(el("span", "ihmt-answer__source", "the vault's own search"));
    box.appendChild(head);
    if (r.message) box.appendChild(el("div", "ihmt-answer__why", r.message));
    if (r.archived_fallback) box.appendChild(el("div", "ihmt-answer__why", "Nothing current matched: these come from the archive."));
    if (r.status === "ambiguous" && !r.message) box.appendChild(el("div", "ihmt-answer__why", "Several memories match equally: a clue tells them apart."));
    var list = el("ol", "ihmt-hits"), shown = r.status === "ambiguous" && r.candidates.length ? r.candidates : r.hits;
    shown.slice(0, full ? 20 : 3).forEach(function (h) { list.appendChild(hitView(h, full)); });
    box.appendChild(list);
    if (!full) {
      var more = el("a", "ihmt-answer__more", "Diagnose this search");
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
    var form = el("form", "ihmt-diagnose__form"), q = el("input"), clue = el("input"), go = el("button", "md-button", "Search");
    q.type = "search"; q.name = "q"; q.placeholder = "which postgres does staging run?";
    clue.type = "text"; clue.name = "clue"; clue.placeholder = "clue (optional)";
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
})();
