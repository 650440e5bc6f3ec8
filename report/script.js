// agentsnap report: open the collapsed sections a link points into, and
// expand or collapse everything. The page works without it.
(function () {
  "use strict";
  // idOf is the id a fragment names; a fragment that is not valid
  // percent-encoding (a hand-edited link, #%E0) names it as written.
  function idOf(fragment) {
    try {
      return decodeURIComponent(fragment);
    } catch (e) {
      return fragment;
    }
  }
  function reveal(fragment) {
    var el = document.getElementById(idOf(fragment));
    if (!el) {
      return;
    }
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") {
        p.open = true;
      }
    }
    el.scrollIntoView({ block: "center" });
  }
  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!t || !t.closest) {
      return;
    }
    var a = t.closest('a[href^="#"]');
    if (a) {
      // Open first, so the browser's own jump finds the target visible.
      reveal(a.getAttribute("href").slice(1));
      return;
    }
    var b = t.closest("button[data-all]");
    if (b) {
      var open = b.getAttribute("data-all") === "open";
      document.querySelectorAll("details").forEach(function (d) {
        d.open = open;
      });
    }
  });
  function fromHash() {
    if (location.hash.length > 1) {
      reveal(location.hash.slice(1));
    }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
