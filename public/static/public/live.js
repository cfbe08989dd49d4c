/*
 * Following a trail system's changes, for the map, the embedded map and the embedded status
 * list: the live stream (Server-Sent Events at `eventsUrl`) while it is there, polling every
 * `pollSeconds` while it is not (no EventSource, the stream refused, or reconnecting).
 *
 *   var follower = window.trailLive({
 *     eventsUrl: ..., pollSeconds: ...,
 *     onPublished: function (data) {},  // an event of the stream: {systemId, version, fileUrl,
 *                                        // compiledOn, changes}; called for every event, the
 *                                        // page compares the version with what it shows
 *     poll: function () { return promise; },  // re-read the data the old way
 *     onState: function (state) {},      // "connecting", "live", "reconnecting" or "polling"
 *     onLive: function () {},            // the stream is live, at first or again after a break:
 *                                        // events sent before it were missed, so re-read what
 *                                        // they would have changed (a closure's `closures`)
 *     events: { groomers: function (data) {} },  // other events of the stream, by name
 *   });
 *
 * While live, a slow poll still runs (every LIVE_POLL_FACTOR polls): the system document's
 * weather changes without a compile. A refused stream is tried again every RETRY_STREAM_MS.
 */
(function () {
  "use strict";

  var STATUS_WORDS = { live: "live_updated", reconnecting: "reconnecting_updated" };
  var LIVE_POLL_FACTOR = 10;
  var RETRY_STREAM_MS = 60000;

  window.trailLive = function (options) {
    var source = null;
    var timer = null;
    var state = "connecting";
    var streamTried = 0;

    // A new state changes the poll's pace; the same one (the browser retrying every few
    // seconds) leaves the next poll where it is.
    function setState(next) {
      if (next === state) return;
      state = next;
      options.onState(state);
      if (state === "live" && options.onLive) options.onLive();
      schedulePoll();
    }

    function schedulePoll() {
      window.clearTimeout(timer);
      var factor = state === "live" ? LIVE_POLL_FACTOR : 1;
      timer = window.setTimeout(poll, options.pollSeconds * factor * 1000);
    }

    function poll() {
      Promise.resolve()
        .then(options.poll)
        .catch(function () {})
        .then(function () {
          if (!source && Date.now() - streamTried > RETRY_STREAM_MS) openStream();
          schedulePoll();
        });
    }

    function parsed(handle) {
      return function (event) {
        var data;
        try {
          data = JSON.parse(event.data);
        } catch (error) {
          return;
        }
        if (data) handle(data);
      };
    }

    var onEvent = parsed(function (data) {
      if (data.version) options.onPublished(data);
    });

    function closeStream() {
      if (source) source.close();
      source = null;
    }

    function openStream() {
      if (!options.eventsUrl || typeof window.EventSource !== "function") {
        setState("polling");
        return;
      }
      streamTried = Date.now();
      source = new window.EventSource(options.eventsUrl);
      source.addEventListener("open", function () {
        setState("live");
      });
      source.addEventListener("current", onEvent);
      source.addEventListener("published", onEvent);
      Object.keys(options.events || {}).forEach(function (name) {
        source.addEventListener(name, parsed(options.events[name]));
      });
      // The system left the public map: polling shows what the pages show then.
      source.addEventListener("unavailable", function () {
        closeStream();
        setState("polling");
        poll();
      });
      source.addEventListener("error", function () {
        if (!source) return;
        if (source.readyState === window.EventSource.CLOSED) {
          closeStream(); // refused (not 200): the browser does not retry by itself
          setState("polling");
        } else {
          setState("reconnecting"); // the browser retries; poll meanwhile
        }
      });
    }

    openStream();
    schedulePoll();
    return {
      state: function () {
        return state;
      },
    };
  };

  // "Live · updated 10:42 MST" (or reconnecting, or plain "Updated"): when the data shown was
  // published, in the system's zone (the one its closures and schedules are in), named, with
  // the date when it is not today's there, in the page's language.
  window.trailLive.statusText = function (texts, language, date, state, zone) {
    var timeZone = zone || undefined;
    var time = date.toLocaleTimeString(language, {
      hour: "2-digit", minute: "2-digit", timeZoneName: "short", timeZone: timeZone,
    });
    var day = function (moment) { return moment.toLocaleDateString("en-CA", { timeZone: timeZone }); };
    if (day(date) !== day(new Date())) {
      time = date.toLocaleDateString(language, { month: "short", day: "numeric", timeZone: timeZone }) + " " + time;
    }
    return (texts[STATUS_WORDS[state]] || texts.updated).replace("{time}", time);
  };
})();
