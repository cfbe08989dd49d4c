/*
 * "Report a problem" on the public map and the embed (POST /report/<id>, issue 35).
 *
 * Built for a phone on a poor connection: the photo is scaled in the browser to at most
 * `maxSide` pixels (a canvas, re-encoded as JPEG) before it is sent; what was typed stays in
 * the form (and in this tab's storage) until the service says it was received, and a failed
 * upload is sent again by itself, later each time. The place is the phone's position when
 * allowed, else a tap on the map; the nearest trail is named from the map's own file and the
 * service measures it again. Words come from #report-config; everything is textContent.
 */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("report-config").textContent);
  var t = config.texts;
  var panel = document.getElementById("report-panel");
  var opener = document.getElementById("report-open");
  var form, statusLine, placeLine, sendButton, retryButton, photoInput;
  var RETRY_SECONDS = [5, 10, 20, 40, 60];
  var STORE_KEY = "trail-report:" + config.url;
  var TEXT_FIELDS = ["category", "description", "lat", "lng", "email"];
  var scaledPhoto = null; // the Blob sent, once scaled
  var retries = 0;
  var retryTimer = null;
  var sending = false;
  var marker = null;
  var trailMap = window.trailMap || null;

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, name) {
      return values[name] === undefined ? "" : String(values[name]);
    });
  }

  function say(text, kind) {
    statusLine.textContent = text;
    statusLine.className = "report-status" + (kind ? " is-" + kind : "");
  }

  function field(name) {
    return form.elements[name];
  }

  function value(name) {
    var element = field(name);
    if (element instanceof RadioNodeList) return element.value;
    return element.value;
  }

  function save() {
    var kept = {};
    TEXT_FIELDS.forEach(function (name) { kept[name] = value(name); });
    try { window.sessionStorage.setItem(STORE_KEY, JSON.stringify(kept)); } catch (e) { /* private mode */ }
  }

  function restore() {
    var kept = null;
    try { kept = JSON.parse(window.sessionStorage.getItem(STORE_KEY) || "null"); } catch (e) { kept = null; }
    if (!kept) return;
    TEXT_FIELDS.forEach(function (name) {
      if (kept[name] === undefined) return;
      var element = field(name);
      if (element instanceof RadioNodeList) element.value = kept[name];
      else element.value = kept[name];
    });
    if (kept.lat && kept.lng) setPlace(parseFloat(kept.lat), parseFloat(kept.lng), false);
  }

  function forget() {
    try { window.sessionStorage.removeItem(STORE_KEY); } catch (e) { /* private mode */ }
  }

  // The nearest trail, named from the map's file (metres on a local flat projection: close
  // enough to name it; the service measures on the ellipsoid).
  function nearestTrail(lat, lng) {
    var features = trailMap && trailMap.features ? trailMap.features() : [];
    var cos = Math.cos(lat * Math.PI / 180);
    var best = null;
    features.forEach(function (feature) {
      var properties = feature.properties || {};
      if (!feature.geometry || feature.geometry.type !== "LineString" || properties.trailId === undefined) return;
      var line = feature.geometry.coordinates;
      for (var i = 1; i < line.length; i++) {
        var ax = (line[i - 1][0] - lng) * cos * 111320, ay = (line[i - 1][1] - lat) * 111320;
        var bx = (line[i][0] - lng) * cos * 111320, by = (line[i][1] - lat) * 111320;
        var dx = bx - ax, dy = by - ay;
        var length = dx * dx + dy * dy;
        var along = length ? Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length)) : 0;
        var x = ax + along * dx, y = ay + along * dy;
        var metres = Math.sqrt(x * x + y * y);
        if (!best || metres < best.metres) best = { name: properties.name, metres: metres };
      }
    });
    return best;
  }

  function setPlace(lat, lng, keep) {
    field("lat").value = lat.toFixed(6);
    field("lng").value = lng.toFixed(6);
    var near = nearestTrail(lat, lng);
    placeLine.textContent = near
      ? fill(t.report_near, { trail: near.name, distance: Math.round(near.metres) })
      : t.report_place_set;
    if (trailMap) {
      if (marker) marker.setLatLng([lat, lng]);
      else marker = L.marker([lat, lng], { keyboard: false }).addTo(trailMap.map);
    }
    if (keep !== false) save();
  }

  function locate() {
    if (!navigator.geolocation) return;
    navigator.geolocation.getCurrentPosition(
      function (position) {
        setPlace(position.coords.latitude, position.coords.longitude);
        if (trailMap) trailMap.map.setView([position.coords.latitude, position.coords.longitude], 15);
      },
      function () { placeLine.textContent = t.report_no_place; },
      { enableHighAccuracy: true, timeout: 15000, maximumAge: 60000 }
    );
  }

  function open(event) {
    if (event) event.preventDefault();
    if (!form) build();
    panel.hidden = false;
    document.body.classList.add("is-reporting");
    if (trailMap) trailMap.map.invalidateSize();
    restore();
    document.getElementById("report-title").focus();
  }

  function close() {
    panel.hidden = true;
    document.body.classList.remove("is-reporting");
    if (trailMap) trailMap.map.invalidateSize();
  }

  // The photo, scaled down to maxSide on its longer side and re-encoded as JPEG.
  function scale(file) {
    var decode = window.createImageBitmap
      ? window.createImageBitmap(file, { imageOrientation: "from-image" })
      : Promise.reject(new Error("no createImageBitmap"));
    return decode.then(function (bitmap) {
      var ratio = Math.min(1, config.maxSide / Math.max(bitmap.width, bitmap.height));
      var canvas = document.createElement("canvas");
      canvas.width = Math.round(bitmap.width * ratio);
      canvas.height = Math.round(bitmap.height * ratio);
      canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      if (bitmap.close) bitmap.close();
      return new Promise(function (resolve) { canvas.toBlob(resolve, "image/jpeg", 0.85); });
    });
  }

  function scalePhoto() {
    scaledPhoto = null;
    var file = photoInput.files && photoInput.files[0];
    if (!file) return;
    say("");
    scale(file).then(function (blob) { scaledPhoto = blob; })
      .catch(function () { scaledPhoto = file.size <= config.maxBytes ? file : null; });
  }

  function body() {
    var data = new FormData();
    TEXT_FIELDS.forEach(function (name) { data.append(name, value(name)); });
    data.append("website", value("website"));
    var file = photoInput.files && photoInput.files[0];
    var photo = scaledPhoto || (file && file.size <= config.maxBytes ? file : null);
    if (photo) data.append("photo", photo, "photo.jpg");
    return data;
  }

  function scheduleRetry() {
    var seconds = RETRY_SECONDS[Math.min(retries, RETRY_SECONDS.length - 1)];
    retries += 1;
    say(fill(t.report_retrying, { seconds: seconds }), "waiting");
    retryButton.hidden = false;
    window.clearTimeout(retryTimer);
    retryTimer = window.setTimeout(send, seconds * 1000);
  }

  function received(answer) {
    window.clearTimeout(retryTimer);
    retries = 0;
    retryButton.hidden = true;
    forget();
    form.reset();
    scaledPhoto = null;
    placeLine.textContent = t.report_no_place;
    if (marker && trailMap) { trailMap.map.removeLayer(marker); marker = null; }
    say(answer.message, "received");
  }

  function send() {
    if (sending) return;
    if (!value("category")) { say(fill(t.report_failed, { message: t.report_category }), "error"); return; }
    if (!value("lat")) { say(t.report_no_place, "error"); return; }
    save();
    sending = true;
    sendButton.disabled = true;
    retryButton.hidden = true;
    say(t.report_sending, "waiting");
    fetch(config.url, { method: "POST", body: body(), headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.json().then(function (answer) { return { status: response.status, answer: answer }; },
          function () { return { status: response.status, answer: null }; });
      })
      .then(function (result) {
        if (result.status === 201) received(result.answer);
        else if (result.status >= 500 || !result.answer) scheduleRetry();
        else say(fill(t.report_failed, { message: result.answer.error.message }), "error");
      })
      .catch(scheduleRetry)
      .then(function () { sending = false; sendButton.disabled = false; });
  }

  // The panel's contents, from their template, the first time it opens.
  function build() {
    panel.appendChild(document.getElementById("report-template").content.cloneNode(true));
    form = document.getElementById("report-form");
    statusLine = document.getElementById("report-status");
    placeLine = document.getElementById("report-place");
    sendButton = document.getElementById("report-send");
    retryButton = document.getElementById("report-retry");
    photoInput = document.getElementById("report-photo");
    photoInput.addEventListener("change", scalePhoto);
    form.addEventListener("submit", function (event) { event.preventDefault(); retries = 0; send(); });
    form.addEventListener("input", save);
    retryButton.addEventListener("click", function () { window.clearTimeout(retryTimer); send(); });
    document.getElementById("report-locate").addEventListener("click", locate);
    document.getElementById("report-close").addEventListener("click", close);
  }

  opener.addEventListener("click", open);
  window.addEventListener("online", function () {
    if (form && retryTimer) { window.clearTimeout(retryTimer); send(); }
  });
  if (trailMap) {
    trailMap.map.on("click", function (event) {
      if (!panel.hidden) setPlace(event.latlng.lat, event.latlng.lng);
    });
  }
})();
