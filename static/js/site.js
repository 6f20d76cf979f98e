// Behaviour every page may need, kept out of the templates: the Content-Security-Policy
// allows no inline script, no on...= handler and no hx-on (htmx would eval it).
(function () {
  "use strict";

  // <button data-empty-closest="#report-box">: empty that ancestor (a Cancel button
  // of a form that htmx swapped into a box).
  document.addEventListener("click", function (evt) {
    var button = evt.target.closest ? evt.target.closest("[data-empty-closest]") : null;
    if (!button) { return; }
    var box = button.closest(button.dataset.emptyClosest);
    if (box) { box.replaceChildren(); }
  });

  // On a phone the header's links fold behind the Menu button of a page that has one (a
  // table, a lesson: table.css), so that the table fits the first screen; without this
  // script the button stays hidden, the links open.
  document.querySelectorAll("[data-menu-toggle]").forEach(function (button) {
    var header = button.closest("header");
    button.hidden = false;
    if (header) { header.classList.add("menu-folds"); }
    button.addEventListener("click", function () {
      button.setAttribute("aria-expanded", String(button.getAttribute("aria-expanded") !== "true"));
    });
  });

  // An element with data-ws says whether its htmx websocket is open (pages and the
  // browser tests read it).
  function markSocket(state) {
    return function (evt) {
      var el = evt.target.closest ? evt.target.closest("[data-ws]") : null;
      if (el) { el.dataset.ws = state; }
    };
  }
  document.addEventListener("htmx:wsOpen", markSocket("open"));
  document.addEventListener("htmx:wsClose", markSocket("closed"));

  // <select data-keep-choice="KEY">: a websocket update re-renders the part of the page
  // it stands in (the seats, with their bot level), which would reset it to the first
  // option. The choice last made in any select of that KEY is put back after each swap.
  var keptChoices = {};
  document.addEventListener("change", function (evt) {
    var select = evt.target;
    if (select.matches && select.matches("select[data-keep-choice]")) {
      keptChoices[select.dataset.keepChoice] = select.value;
    }
  });
  function restoreChoices() {
    document.querySelectorAll("select[data-keep-choice]").forEach(function (select) {
      var kept = keptChoices[select.dataset.keepChoice];
      if (kept !== undefined && select.value !== kept &&
          select.querySelector('option[value="' + CSS.escape(kept) + '"]')) {
        select.value = kept;
      }
    });
  }
  document.addEventListener("htmx:wsAfterMessage", restoreChoices);
  document.addEventListener("htmx:load", restoreChoices);

  // The service worker (pan_site/webapp.py): the site installs as an app, shows its
  // offline page when the network drops, and takes pushes. Registered after the page
  // has loaded, so that its first download never competes with the page's own.
  var worker = document.documentElement.dataset.serviceWorker;
  if (worker && "serviceWorker" in navigator) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(worker, { scope: "/" }).catch(function () {});
    });
  }
})();
