// Learn: a visitor's completed lessons are kept in this browser (never sent to the
// server), ticked and counted on the course; a lesson's answer is said by the live region, and
// the keyboard is given back to the hand, or to what comes after a completed lesson.
(function () {
  "use strict";
  var KEY = "pan-learn-done";

  function stored() {
    try { return JSON.parse(window.localStorage.getItem(KEY) || "[]"); } catch (e) { return []; }
  }

  function remember(slug) {
    var done = stored();
    if (done.indexOf(slug) !== -1) { return; }
    done.push(slug);
    try { window.localStorage.setItem(KEY, JSON.stringify(done)); } catch (e) { /* storage off */ }
  }

  function tickCourse() {
    var list = document.querySelector('[data-testid="lessons"][data-visitor]');
    if (!list) { return; }
    var done = stored();
    list.querySelectorAll("[data-lesson]").forEach(function (entry) {
      if (done.indexOf(entry.dataset.lesson) === -1) { return; }
      entry.setAttribute("data-done", "");
      entry.querySelector(".lesson-tick").hidden = false;
    });
    // The bar and its words count the lessons of the course ticked (a lesson the course
    // no longer has is not counted).
    var count = list.querySelectorAll("[data-lesson][data-done]").length;
    var bar = document.querySelector('[data-testid="progress-bar"]');
    var words = document.querySelector('[data-testid="progress-text"]');
    if (bar) { bar.value = count; }
    if (words && words.dataset.template) { words.textContent = words.dataset.template.replace("{done}", count); }
  }

  function keepProgress(lesson) {
    if (lesson.hasAttribute("data-lesson-complete") && lesson.hasAttribute("data-visitor")) {
      remember(lesson.dataset.lesson);
    }
  }

  // The card a move was made with, given the focus back in the answer. A move posts with
  // htmx, or as a plain form when it is made before the script is ready (a slow phone):
  // then the answer is a new page, and the card is kept for it in this tab's storage.
  var FOCUS_KEY = "pan-learn-focus";
  var focusedCard = null;
  document.addEventListener("submit", function (evt) {
    if (!evt.target.closest || !evt.target.closest("#lesson")) { return; }
    var active = document.activeElement;
    focusedCard = active && active.dataset ? active.dataset.card || null : null;
    try { window.sessionStorage.setItem(FOCUS_KEY, focusedCard || ""); } catch (e) { /* storage off */ }
  }, true);

  function handStop(lesson) {
    var cards = Array.prototype.slice.call(lesson.querySelectorAll("#my-hand .hand-cards .card-button"));
    var same = cards.filter(function (el) { return el.dataset.card === focusedCard; })[0];
    if (same) {
      cards.forEach(function (el) { el.tabIndex = el === same ? 0 : -1; });
      return same;
    }
    return cards.filter(function (el) { return el.tabIndex === 0; })[0] ||
      lesson.querySelector('#my-hand [data-testid="pickup"]') || document.getElementById("my-hand");
  }

  function answered(lesson) {
    keepProgress(lesson);
    var wrong = lesson.querySelector('[data-testid="lesson-wrong"]');
    var complete = lesson.querySelector('[data-testid="lesson-complete"]');
    var parts = [];
    if (wrong) {
      parts.push(wrong.dataset.said);
    } else {
      if (lesson.dataset.said) { parts.push(lesson.dataset.said); }
      if (complete) { parts.push(complete.dataset.said); }
    }
    var announcer = document.getElementById("announcer");
    if (announcer) { announcer.textContent = parts.join(". "); }
    var target = complete ? complete.querySelector("a.button, button") : handStop(lesson);
    if (target) { target.focus(); }
  }

  // A refused post (a stale or altered page) answers 400 with the lesson started again
  // and why: shown like any answer, which htmx would otherwise leave unswapped.
  document.addEventListener("htmx:beforeSwap", function (evt) {
    if (evt.detail.xhr.status === 400 && evt.detail.target && evt.detail.target.id === "lesson") {
      evt.detail.shouldSwap = true;
      evt.detail.isError = false;
    }
  });

  // At the swap, not at the settle a few milliseconds later: a key pressed in between
  // would find the focus nowhere. Only the lesson's own swaps: the header's socket swaps
  // too, and must neither move the focus nor say the answer again.
  document.addEventListener("htmx:afterSwap", function (evt) {
    if (!evt.target || evt.target.id !== "lesson") { return; }
    var lesson = document.getElementById("lesson");
    if (lesson) { answered(lesson); }
  });

  function start() {
    tickCourse();
    var lesson = document.getElementById("lesson");
    if (!lesson) { return; }
    if (!lesson.hasAttribute("data-answer")) {
      keepProgress(lesson);
      return;
    }
    try { focusedCard = window.sessionStorage.getItem(FOCUS_KEY) || null; } catch (e) { /* storage off */ }
    answered(lesson);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
