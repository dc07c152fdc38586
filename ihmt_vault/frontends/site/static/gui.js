/* IHMT Vault (every site): the interface in English or Spanish, chosen in the screens' bar.
   The words come from one table (ihmt_vault/frontends/site/strings.py, written in below). The choice is
   kept in localStorage; without one, the browser's language decides (navigator.languages), else English.
   Only the interface's marks change: elements with data-ihmt-t (their text), data-ihmt-p (placeholder),
   data-ihmt-a (aria-label), a memory header's badges (data-ihmt-h), the sidebar's generated pages.
   What memories say is never touched. */
(function () {
  "use strict";
  var TABLE = /*STRINGS*/ null;
  if (!TABLE) return;
  var NAMES = TABLE.names, STORE = TABLE.storage;

  function stored() {
    try { return window.localStorage.getItem(STORE); } catch (e) { return null; }
  }
  function preferred() {
    var s = stored();
    if (s && NAMES[s]) return s;
    var asked = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
    for (var i = 0; i < asked.length; i++) {
      var code = String(asked[i] || "").slice(0, 2).toLowerCase();
      if (NAMES[code]) return code;
    }
    return "en";
  }
  var lang = preferred();

  function t(key, n) {
    var words = (TABLE[lang] || {})[key];
    if (words === undefined) words = TABLE.en[key];
    if (words === undefined) return null;
    return n === undefined || n === null ? words : words.split("{n}").join(String(n));
  }
  function keyOf(value) { return String(value || "").split(":").pop(); }

  // The words of a memory's header, in every language: a badge's or a line's first text may start with one.
  var HEADER = ["badge.outdated", "badge.archived", "badge.pinned", "header.corrects"];
  function headerWords(node) {
    var v = node.nodeValue;
    for (var i = 0; i < HEADER.length; i++) {
      for (var code in NAMES) {
        var w = TABLE[code][HEADER[i]];
        if (w && v.slice(0, w.length) === w && (v.length === w.length || /[\s→]/.test(v.charAt(w.length)))) {
          node.nodeValue = t(HEADER[i]) + v.slice(w.length);
          return;
        }
      }
    }
  }

  function apply(root) {
    root = root || document;
    document.documentElement.setAttribute("lang", lang);
    root.querySelectorAll("[data-ihmt-t]").forEach(function (el) {
      var words = t(keyOf(el.getAttribute("data-ihmt-t")), el.getAttribute("data-ihmt-v"));
      if (words !== null) el.textContent = words;
    });
    root.querySelectorAll("[data-ihmt-p]").forEach(function (el) {
      var words = t(el.getAttribute("data-ihmt-p"));
      if (words !== null) el.setAttribute("placeholder", words);
    });
    root.querySelectorAll("[data-ihmt-a]").forEach(function (el) {
      var words = t(el.getAttribute("data-ihmt-a"));
      if (words !== null) el.setAttribute("aria-label", words);
    });
    root.querySelectorAll("[data-ihmt-h]").forEach(function (mark) {
      var header = mark.closest(".ihmt-header");
      if (header) header.querySelectorAll(".ihmt-badge, p").forEach(function (el) {
        var first = el.firstChild;
        if (first && first.nodeType === 3) headerWords(first);
      });
    });
    document.querySelectorAll("[data-ihmt-lang]").forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-ihmt-lang") === lang ? "true" : "false");
    });
    var search = document.querySelector(".md-search__input");
    if (search) search.setAttribute("placeholder", t("search.placeholder"));
    pages();
  }

  // The generated pages in the sidebar and the browser's title: named by the bar (data-ihmt-pages).
  var titleTail = null;
  function pages() {
    var bar = document.querySelector(".ihmt-screens");
    if (!bar) return;
    var known = {};
    try { known = JSON.parse(bar.getAttribute("data-ihmt-pages") || "{}"); } catch (e) { known = {}; }
    var byUrl = {};
    Object.keys(known).forEach(function (rel) { byUrl[new URL(rel, window.location.href).href] = known[rel]; });
    document.querySelectorAll("nav.md-nav--primary a.md-nav__link[href]").forEach(function (a) {
      var key = byUrl[a.href], label = a.querySelector(".md-ellipsis") || a;
      if (key && t(key) !== null) label.textContent = t(key);
    });
    var here = byUrl[window.location.href.split("#")[0].split("?")[0]];
    if (here) {
      if (titleTail === null) {
        var cut = document.title.indexOf(" - ");
        titleTail = cut >= 0 ? document.title.slice(cut) : "";
      }
      document.title = t(here) + titleTail;
      var topic = document.querySelector('[data-md-component="header-topic"] .md-ellipsis');
      if (topic) topic.textContent = t(here);   // the header shows the page's title once scrolled
    }
  }

  function choose(code) {
    if (!NAMES[code]) return;
    lang = code;
    try { window.localStorage.setItem(STORE, code); } catch (e) { /* private mode: this page only */ }
    apply(document);
    document.dispatchEvent(new CustomEvent("ihmt:lang", {detail: {lang: code}}));
  }

  document.addEventListener("click", function (e) {
    var b = e.target && e.target.closest ? e.target.closest("[data-ihmt-lang]") : null;
    if (b) { e.preventDefault(); choose(b.getAttribute("data-ihmt-lang")); }
  });
  window.ihmtI18n = {t: t, apply: apply, lang: function () { return lang; }, choose: choose};
  apply(document);
})();
