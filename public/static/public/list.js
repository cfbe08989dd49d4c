/*
 * The embedded status list, kept current: on each event of the live stream (or each poll
 * while there is none) the page is read again and its table replaces the one shown, so the
 * template stays the one renderer of a row. The page read is this site's own, whose data the
 * template escaped: names reach the table as text, as they did the first time.
 */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("list-config").textContent);
  var statusLine = document.getElementById("list-status");
  var state = {
    version: config.version,
    closures: config.closuresVersion,
    updatedAt: config.compiledOn ? new Date(config.compiledOn) : new Date(),
    connection: "connecting",
  };
  var loads = 0; // the newest load shown, so a slow older one never replaces it
  var shownLoad = 0;

  function showStatus() {
    statusLine.textContent = window.trailLive.statusText(
      config.texts, config.language, state.updatedAt, state.connection, config.timeZone
    );
    statusLine.setAttribute("data-connection", state.connection);
  }

  // `version` names the compile wanted (a distinct address past any cache on the way).
  function reload(version) {
    var number = ++loads;
    var url = window.location.pathname + (version ? "?v=" + encodeURIComponent(version) : "");
    return fetch(url, { cache: "no-store", credentials: "omit" })
      .then(function (response) {
        if (!response.ok) throw new Error(url + " answered " + response.status);
        return response.text();
      })
      .then(function (html) {
        if (number < shownLoad) return;
        shownLoad = number;
        var page = new DOMParser().parseFromString(html, "text/html");
        var table = page.getElementById("status-table");
        var fresh = JSON.parse(page.getElementById("list-config").textContent);
        if (!table) return;
        document.getElementById("status-table").replaceWith(document.adoptNode(table));
        state.closures = fresh.closuresVersion;
        if (fresh.version !== state.version) {
          state.version = fresh.version;
          state.updatedAt = fresh.compiledOn ? new Date(fresh.compiledOn) : new Date();
        }
        showStatus();
      });
  }

  showStatus();
  window.trailLive({
    eventsUrl: config.eventsUrl,
    pollSeconds: config.pollSeconds,
    onPublished: function (data) {
      if (data.version !== state.version) reload(data.version).catch(function () {});
    },
    poll: function () {
      return reload("");
    },
    onState: function (connection) {
      state.connection = connection;
      showStatus();
    },
    // A `closures` event sent before the stream was live (at first or after a break) was missed.
    onLive: function () {
      reload("").catch(function () {});
    },
    // A closure changes no map file: its "Partly closed" comes with the page read again.
    events: {
      closures: function (data) {
        if (data.version !== state.closures) reload("").catch(function () {});
      },
    },
  });
})();
