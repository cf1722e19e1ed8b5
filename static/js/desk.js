/* legalnav: small progressive enhancements; every page works without them.
   - Upload: files dropped anywhere on the upload card go into its file input; the chosen files
     are listed with their sizes.
   - Reader: a defined term shows its definition on hover or keyboard focus (Escape hides it).
     The definition is also the term's accessible description (aria-describedby), so screen
     readers get it without this script. Text is set with textContent, never parsed as HTML.
   - Reader on a narrow screen: the outline starts folded and folds again when a clause is picked.
   - Compare: the citation panel moves under the answer whose citation was clicked. */
(function () {
  "use strict";

  function human(n) {
    return n >= 1048576 ? (n / 1048576).toFixed(1) + " MB" : Math.max(1, Math.round(n / 1024)) + " KB";
  }

  function listFiles(form, input) {
    var list = form.querySelector("[data-chosen]");
    if (!list) return;
    list.textContent = "";
    Array.prototype.forEach.call(input.files || [], function (f) {
      var li = document.createElement("li");
      li.textContent = f.name + " · " + human(f.size);
      list.appendChild(li);
    });
  }

  function setUpDropzone(form) {
    var input = form.querySelector('input[type="file"]');
    if (!input) return;
    input.addEventListener("change", function () { listFiles(form, input); });
    ["dragenter", "dragover"].forEach(function (type) {
      form.addEventListener(type, function (e) {
        if (!e.dataTransfer || Array.prototype.indexOf.call(e.dataTransfer.types, "Files") < 0) return;
        e.preventDefault();
        form.classList.add("dragging");
      });
    });
    ["dragleave", "dragend"].forEach(function (type) {
      form.addEventListener(type, function (e) {
        if (!form.contains(e.relatedTarget)) form.classList.remove("dragging");
      });
    });
    form.addEventListener("drop", function (e) {
      form.classList.remove("dragging");
      if (!e.dataTransfer || !e.dataTransfer.files.length) return;
      e.preventDefault();
      input.files = e.dataTransfer.files;
      listFiles(form, input);
      input.focus();
    });
  }

  function setUpTerms() {
    var tip = document.getElementById("term-tip");
    if (!tip) return;
    var current = null;

    function show(term) {
      var def = document.getElementById(term.getAttribute("aria-describedby") || "");
      if (!def) return;
      current = term;
      tip.textContent = def.textContent;
      tip.hidden = false;
      var r = term.getBoundingClientRect();
      var width = Math.min(420, document.documentElement.clientWidth - 16);
      tip.style.maxWidth = width + "px";
      var left = Math.min(r.left, document.documentElement.clientWidth - tip.offsetWidth - 8);
      tip.style.left = Math.max(8, left) + window.scrollX + "px";
      var below = r.bottom + 6;
      var top = below + tip.offsetHeight > window.innerHeight && r.top > tip.offsetHeight + 12
        ? r.top - tip.offsetHeight - 6 : below;
      tip.style.top = top + window.scrollY + "px";
    }
    function hide() { tip.hidden = true; current = null; }

    document.addEventListener("mouseover", function (e) {
      var t = e.target.closest && e.target.closest("a.term");
      if (t && t !== current) show(t);
    });
    document.addEventListener("mouseout", function (e) {
      var t = e.target.closest && e.target.closest("a.term");
      if (t && !t.contains(e.relatedTarget) && document.activeElement !== t) hide();
    });
    document.addEventListener("focusin", function (e) {
      var t = e.target.closest && e.target.closest("a.term");
      if (t) show(t); else if (current) hide();
    });
    document.addEventListener("focusout", function (e) {
      if (e.target === current) hide();
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && current) hide();
    });
    window.addEventListener("resize", hide);
  }

  function setUpOutlineFold() {
    var narrow = window.matchMedia("(max-width: 760px)");
    Array.prototype.forEach.call(document.querySelectorAll("details[data-fold-narrow]"), function (d) {
      if (narrow.matches) d.open = false;
      d.addEventListener("click", function (e) {
        // Fold before the browser scrolls to the clause, so it lands where the clause now is.
        if (narrow.matches && e.target.closest("a[href^='#']")) d.open = false;
      });
    });
  }

  function setUpComparePanel() {
    document.addEventListener("htmx:beforeRequest", function (e) {
      var target = e.detail && e.detail.target;
      var link = e.detail && e.detail.elt;
      if (!target || target.id !== "provision-panel" || !link.closest) return;
      var side = link.closest(".compare-side");
      if (!side) return;
      var text = side.querySelector(".answer-text");
      if (text && text.nextElementSibling !== target) {
        text.insertAdjacentElement("afterend", target);
        target.classList.remove("wide");
      }
    });
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("form[data-dropzone]"), setUpDropzone);
    setUpTerms();
    setUpOutlineFold();
    setUpComparePanel();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
