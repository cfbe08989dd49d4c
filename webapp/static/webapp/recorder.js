/*
 * The grooming recorder (webapp/recorder_page.py): the browser's geolocation, the screen kept
 * on (Screen Wake Lock), every position kept in localStorage until the server took it, sent in
 * batches of at most `batch` (Traccar Client's JSON shape) with the grooming condition chosen,
 * the distance and the trails marked so far, and Stop, which sends what is left and then ends
 * the session. A position is removed from the phone only once the server answered 200 for its
 * batch: nothing is lost offline. The status line says what is happening now, from the state
 * (recording, the positions kept and those waiting for a connection, stopping, recorded).
 */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("recorder-config").textContent);
  var SEND_EVERY_MS = 5000;
  var MIN_INTERVAL_MS = 1000;
  var words = {};
  document.getElementById("recorder-words").content.querySelectorAll("[data-word]").forEach(function (node) {
    words[node.getAttribute("data-word")] = node.textContent;
  });
  var csrf = document.querySelector("#recorder-form [name=csrfmiddlewaretoken]").value;
  var startButton = document.getElementById("start-recording");
  var stopButton = document.getElementById("stop-recording");
  var statusLine = document.getElementById("recorder-status");
  var distanceBox = document.getElementById("recorder-distance");
  var queuedBox = document.getElementById("recorder-queued");
  var trailsBox = document.getElementById("recorder-trails");
  var conditionBox = document.getElementById("recorder-condition");
  var said = config.words;
  var pluralRules = new Intl.PluralRules(config.language);

  var saved = JSON.parse(localStorage.getItem(config.storageKey) || "{}");
  var state = {
    queue: saved.queue || [], // positions not yet taken by the server
    metres: saved.metres || 0,
    last: saved.last || null, // the previous position, for the distance
    recording: Boolean(saved.recording),
    stopping: Boolean(saved.stopping),
    count: saved.count || 0, // positions recorded in this pass
    condition: saved.condition || config.condition,
  };
  // Not kept: what the last send, the location permission and the screen lock told.
  var online = navigator.onLine;
  var denied = false;
  var recorded = false;
  var noWakeLock = false;
  var watch = null;
  var poll = null;
  var wakeLock = null;
  var sending = false;

  function save() {
    localStorage.setItem(config.storageKey, JSON.stringify(state));
    queuedBox.textContent = String(state.queue.length);
    distanceBox.textContent = (state.metres / 1000).toFixed(2) + " km";
    conditionBox.value = state.condition;
    conditionBox.disabled = state.recording || state.stopping;
    statusLine.textContent = statusText() || statusLine.textContent;
  }

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) { return values[key]; });
  }

  function counted(forms, n) {
    return format(pluralRules.select(n) === "one" ? forms.one : forms.other, { count: n });
  }

  // What is happening now; null before the first Start (the page's own words stay).
  function statusText() {
    var waiting = state.queue.length;
    var values = { positions: counted(said.positions, state.count), waiting: waiting };
    var text = null;
    if (denied) return words.denied;
    if (state.recording) {
      if (!state.count) text = said.waiting_fix;
      else if (!waiting) text = format(said.recording_sent, values);
      else text = format(online ? said.recording : said.recording_waiting, values);
    } else if (state.stopping) {
      text = waiting && !online
        ? format(said.stopping_waiting, { positions: counted(said.positions, waiting) })
        : said.stopping;
    } else if (recorded) {
      text = said.stopped;
    }
    return text && noWakeLock && state.recording ? text + " " + words["no-wake-lock"] : text;
  }

  // Metres between two [lat, lon] on a sphere: enough for the figure shown.
  function metresBetween(a, b) {
    var rad = Math.PI / 180;
    var dLat = (b.lat - a.lat) * rad, dLon = (b.lon - a.lon) * rad;
    var h = Math.sin(dLat / 2) * Math.sin(dLat / 2) +
      Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) * Math.sin(dLon / 2);
    return 2 * 6371008.8 * Math.asin(Math.sqrt(h));
  }

  function keep(position) {
    if (!state.recording) return; // a sample answered after Stop
    var point = {
      lat: position.coords.latitude, lon: position.coords.longitude,
      acc: position.coords.accuracy, t: position.timestamp,
    };
    if (state.last && point.t - state.last.t < MIN_INTERVAL_MS) return;
    if (state.last) state.metres += metresBetween(state.last, point);
    state.last = point;
    state.count += 1;
    state.queue.push(point);
    save();
  }

  // Only a refusal is worth telling: a sample that timed out while the watch delivers
  // positions is no news, and before the first one the line says it waits for it.
  function failed(error) {
    if (error.code !== 1) return;
    denied = true;
    save();
  }

  function sample() {
    navigator.geolocation.getCurrentPosition(keep, failed, { enableHighAccuracy: true, maximumAge: 0, timeout: 10000 });
  }

  function holdScreen() {
    if (!("wakeLock" in navigator)) {
      noWakeLock = true;
      return;
    }
    navigator.wakeLock.request("screen").then(function (lock) {
      wakeLock = lock;
    }).catch(function () { /* refused (battery saver): the status says so below */ });
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && state.recording) holdScreen();
  });

  function post(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: body,
    }).then(function (answer) {
      if (!answer.ok) throw new Error(String(answer.status));
      return answer.json();
    });
  }

  function showTrails(answer) {
    trailsBox.textContent = answer.trails.length ? answer.trails.join(", ") : words.none;
  }

  // Send the oldest positions kept, a batch at a time, until none is left or sending fails.
  function send() {
    if (sending) return Promise.resolve();
    if (!state.queue.length) return state.stopping ? finish() : Promise.resolve();
    sending = true;
    var batch = state.queue.slice(0, config.batch);
    var body = JSON.stringify({
      location: batch.map(function (p) {
        return {
          timestamp: new Date(p.t).toISOString(),
          coords: { latitude: p.lat, longitude: p.lon, accuracy: p.acc },
        };
      }),
    });
    var url = config.positionsUrl + "?condition=" + encodeURIComponent(state.condition);
    return post(url, body).then(function (answer) {
      online = true;
      state.queue = state.queue.slice(batch.length);
      save();
      showTrails(answer);
      sending = false;
      return send();
    }).catch(function () {
      online = false;
      sending = false;
      save();
    });
  }

  function finish() {
    return post(config.stopUrl, "{}").then(function (answer) {
      showTrails(answer);
      online = true;
      recorded = true;
      state.stopping = false;
      state.last = null;
      save();
      startButton.hidden = false;
      stopButton.hidden = true;
    }).catch(function () {
      online = false;
      save();
    });
  }

  function start() {
    state.recording = true;
    state.stopping = false;
    recorded = false;
    if (!state.queue.length) {
      state.metres = 0;
      state.count = 0;
      state.last = null;
    }
    holdScreen();
    save();
    startButton.hidden = true;
    stopButton.hidden = false;
    watch = navigator.geolocation.watchPosition(keep, failed, { enableHighAccuracy: true, maximumAge: 0 });
    poll = setInterval(sample, MIN_INTERVAL_MS);
  }

  function stop() {
    state.recording = false;
    state.stopping = true;
    save();
    if (watch !== null) navigator.geolocation.clearWatch(watch);
    clearInterval(poll);
    if (wakeLock) wakeLock.release();
    wakeLock = null;
    save();
    send();
  }

  conditionBox.addEventListener("change", function () {
    state.condition = conditionBox.value;
    save();
  });
  startButton.addEventListener("click", start);
  stopButton.addEventListener("click", stop);
  window.addEventListener("online", send);
  window.addEventListener("offline", function () {
    online = false;
    save();
  });
  setInterval(send, SEND_EVERY_MS);
  save();
  // A page reloaded mid-pass goes on where it was; a Stop not yet sent is sent.
  if (state.recording) start();
  else if (state.stopping) {
    startButton.hidden = true;
    stopButton.hidden = true;
    send();
  }
})();
