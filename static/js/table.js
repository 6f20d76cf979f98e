// The table page: ticking clocks, lag pings, connection state. The server decides
// everything; this only counts down from the server's remaining milliseconds.
(function () {
  "use strict";
  var clocksBase = performance.now();

  function format(ms) {
    ms = Math.max(0, ms);
    if (ms < 10000) {
      return Math.floor(ms / 1000) + "." + Math.floor((ms % 1000) / 100);
    }
    var s = Math.floor(ms / 1000);
    var m = Math.floor(s / 60);
    var h = Math.floor(m / 60);
    s = s % 60;
    // A correspondence clock: "N d hh:mm" over a day, h:mm:ss over an hour (pan.py's clock).
    if (h >= 24) {
      return Math.floor(h / 24) + " d " + pad(h % 24) + ":" + pad(m % 60);
    }
    if (h > 0) {
      return h + ":" + pad(m % 60) + ":" + pad(s);
    }
    return m + ":" + pad(s);
  }

  function pad(n) {
    return (n < 10 ? "0" : "") + n;
  }

  // The running clock is the one beside the label of the player to move (its class): a
  // move that passes the turn sends the labels, and the next player's clock only when it
  // has to (it stands at the milliseconds it stopped at). It counts down from when it
  // started running on this page, or was drawn again.
  var RUNNING = "#players .player > .to-move ~ .clock";
  var running = document.querySelector(RUNNING);

  function tick() {
    var elapsed = performance.now() - clocksBase;
    document.querySelectorAll(RUNNING).forEach(function (el) {
      var left = parseInt(el.dataset.ms, 10) - elapsed;
      el.textContent = format(left);
      el.classList.toggle("low", left < 10000);
      // The player whose own clock runs low hears each second go (table-sounds.js).
      var second = Math.ceil(left / 1000);
      if (left > 0 && left < 10000 && el.dataset.lowSecond !== String(second) && el.closest(".player.me")) {
        el.dataset.lowSecond = second;
        document.dispatchEvent(new CustomEvent("pan:low-time", { detail: { seconds: second } }));
      }
    });
  }

  // The rules stand open until the first deal; then the cards need the room (a phone
  // would have to scroll past them). Folded once: the player may open them again.
  var rules = document.querySelector("details.rules-summary");
  if (rules && !rules.open) { rules.dataset.folded = "1"; }

  function foldRulesOnceDealt() {
    if (rules && rules.open && !rules.dataset.folded &&
        document.querySelector('[data-testid="commitment"]')) {
      rules.open = false;
      rules.dataset.folded = "1";
    }
  }

  // The tab's title says when it is your turn, so that a player reading another tab
  // sees it (and a phone in a pocket buzzes, where the browser allows it).
  var baseTitle = document.title;
  function markTurn() {
    var turn = document.querySelector('[data-testid="your-turn"]');
    var title = turn ? "\u25B6 " + turn.textContent.trim() + " \u00B7 " + baseTitle : baseTitle;
    if (document.title === title) { return; }
    if (turn && document.hidden && navigator.vibrate) { navigator.vibrate(120); }
    document.title = title;
  }
  markTurn();

  // The players' panels are the same for every viewer (one render serves all); the
  // viewer's own panel is marked here, from the seat his own hand carries.
  function markMe() {
    var hand = document.getElementById("my-hand");
    var seat = hand ? hand.dataset.mySeat : "";
    document.querySelectorAll("#players .player").forEach(function (el) {
      el.classList.toggle("me", seat !== "" && el.dataset.seat === seat);
    });
  }
  markMe();

  // A refusal lies over the table (table.css): it goes when the table changes (a move,
  // a new hand), at a click on it, or with Escape.
  function clearNotice() {
    var notice = document.getElementById("notice");
    if (notice && notice.firstChild) { notice.replaceChildren(); }
  }
  document.addEventListener("pan:table-changed", function (evt) {
    var was = evt.detail.before;
    var now = evt.detail.after;
    if (was.hand !== now.hand || was.version !== now.version) { clearNotice(); }
  });
  document.addEventListener("click", function (evt) {
    if (evt.target.closest && evt.target.closest("#notice")) { clearNotice(); }
  });
  document.addEventListener("keydown", function (evt) {
    if (evt.key === "Escape") { clearNotice(); }
  });

  document.querySelectorAll("[data-select-on-focus]").forEach(function (el) {
    el.addEventListener("focus", function () { el.select(); });
    el.addEventListener("click", function () { el.select(); });
  });

  document.addEventListener("htmx:wsAfterMessage", function (evt) {
    var message = evt.detail.message || "";
    foldRulesOnceDealt();
    markTurn();
    markMe();
    // Another clock runs, or the running one was drawn again (its milliseconds are
    // fresh): it counts from now. A clock not sent stays as it was.
    var now = document.querySelector(RUNNING);
    if (now !== running) {
      running = now;
      clocksBase = performance.now();
    }
    if (message.indexOf("data-ping") !== -1) {
      var ping = document.getElementById("ws-ping");
      if (ping && ping.dataset.ping) {
        evt.detail.socketWrapper.send(JSON.stringify({ action: "pong", t: ping.dataset.ping }));
      }
    }
  });

  document.addEventListener("htmx:wsOpen", function () {
    var el = document.getElementById("conn-state");
    if (el) { el.classList.add("on"); el.classList.remove("off"); }
  });
  document.addEventListener("htmx:wsClose", function () {
    var el = document.getElementById("conn-state");
    if (el) { el.classList.add("off"); el.classList.remove("on"); }
  });

  document.addEventListener("htmx:wsAfterSend", function (evt) {
    var form = evt.target.closest ? evt.target.closest(".chat-form") : null;
    if (form) { form.reset(); }
  });

  setInterval(tick, 100);
})();
