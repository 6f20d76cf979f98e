// Light, dark or the system's theme, chosen in the header and kept in this browser.
// Loaded in <head> without defer, so that the page is painted in its theme from the
// first frame (the Content-Security-Policy allows no inline script to do it).
(function () {
  "use strict";

  var KEY = "pan-theme";
  var root = document.documentElement;
  var systemDark = window.matchMedia("(prefers-color-scheme: dark)");

  function chosen() {
    var choice = null;
    try { choice = localStorage.getItem(KEY); } catch (e) { /* storage refused */ }
    return choice === "light" || choice === "dark" ? choice : "system";
  }

  var choice = chosen();

  function apply() {
    root.dataset.themeChosen = choice;
    root.dataset.theme = choice === "system" ? (systemDark.matches ? "dark" : "light") : choice;
    document.querySelectorAll("[data-theme-choice]").forEach(function (button) {
      button.setAttribute("aria-pressed", button.dataset.themeChoice === choice ? "true" : "false");
    });
  }

  apply();
  systemDark.addEventListener("change", apply);

  document.addEventListener("DOMContentLoaded", function () {
    var group = document.querySelector("[data-theme-switch]");
    if (!group) { return; }
    group.hidden = false; // without this script the switch could not work: it stays hidden
    apply();
    group.addEventListener("click", function (evt) {
      var button = evt.target.closest("[data-theme-choice]");
      if (!button) { return; }
      choice = button.dataset.themeChoice;
      try {
        if (choice === "system") { localStorage.removeItem(KEY); } else { localStorage.setItem(KEY, choice); }
      } catch (e) { /* storage refused: the choice lasts for this page */ }
      apply();
    });
  });
})();
