// The lobby's "Play now" panel: the seek lives as long as this socket (/ws/seek/).
// The server sends JSON frames with the texts already translated (pairing.consumers).
// A socket the server drops (1006), restarts (1012) or cannot serve yet (1013) is opened
// again as htmx's ws extension does for the page's other sockets, after a pause drawn
// between 0 and 1 s, then up to 2, 4, ... 64 s (full jitter), and the seek is sent again.
(function () {
  "use strict";
  var panel = document.getElementById("play-now");
  if (!panel) { return; }
  var form = panel.querySelector(".play-now-form");
  var waiting = panel.querySelector(".play-now-waiting");
  var bots = panel.querySelector(".play-now-bots");
  var count = panel.querySelector("[data-testid=play-now-count]");
  var message = panel.querySelector(".play-now-message");
  var socket = null, botsTimer = null, leaving = false;
  var seek = null, tries = 0, retryTimer = null;
  var RECONNECT_CODES = [1006, 1012, 1013];

  function text(name) {
    var t = panel.querySelector("template[data-text=" + name + "]");
    return t ? t.content.textContent.trim() : "";
  }
  function show(isWaiting) {
    form.hidden = isWaiting;
    waiting.hidden = !isWaiting;
    if (!isWaiting) {
      bots.hidden = true;
      count.textContent = "";
      clearTimeout(botsTimer);
    }
  }
  function send(frame) {
    if (socket && socket.readyState === WebSocket.OPEN) { socket.send(JSON.stringify(frame)); }
  }
  function stop() {
    seek = null;
    clearTimeout(retryTimer);
    if (socket) { socket.onclose = null; socket.close(); socket = null; }
    show(false);
  }
  function onFrame(event) {
    var frame = JSON.parse(event.data);
    if (frame.type === "waiting") {
      if (frame.text) { count.textContent = frame.text; }
      if (frame.bots_after) {
        clearTimeout(botsTimer);
        botsTimer = setTimeout(function () { bots.hidden = false; }, frame.bots_after * 1000);
      }
    } else if (frame.type === "seated") {
      leaving = true;
      window.location.assign(frame.url);
    } else if (frame.type === "refused") {
      message.textContent = frame.message;
      if (frame.url) {  // he has a seat at another table: take him there
        var link = document.createElement("a");
        link.href = frame.url;
        link.textContent = text("your-table");
        link.setAttribute("data-testid", "play-now-table");
        message.append(" ", link);
      }
      if (!frame.waiting) { stop(); }
    } else if (frame.type === "cancelled") {
      stop();
    }
  }
  function open() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + window.location.host + "/ws/seek/");
    socket.onmessage = onFrame;
    socket.onopen = function () {
      tries = 0;
      show(true);
      send(seek);
    };
    socket.onclose = function (event) {
      socket = null;
      if (seek && !leaving && RECONNECT_CODES.indexOf(event.code) >= 0) {
        var ceiling = Math.min(Math.pow(2, tries), 64);
        tries += 1;
        retryTimer = setTimeout(open, Math.random() * ceiling * 1000);
        return;
      }
      seek = null;
      show(false);
      if (!leaving) { message.textContent = text("closed"); }
    };
  }
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    message.textContent = "";
    var data = new FormData(form);
    seek = {
      action: "seek",
      time_control: data.get("time_control"),
      size: data.get("size"),
      wait: parseInt(data.get("wait"), 10)
    };
    tries = 0;
    open();
  });
  panel.querySelector("[data-action=cancel]").addEventListener("click", function () {
    if (socket && socket.readyState === WebSocket.OPEN) { send({ action: "cancel" }); } else { stop(); }
  });
  panel.querySelector("[data-action=bots]").addEventListener("click", function () {
    send({ action: "bots", level: panel.querySelector("select[name=level]").value });
  });
})();
