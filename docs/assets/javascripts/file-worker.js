/* Search for the manual opened from disk (file://), with no request outside the site.
 *
 * Material's search runs its index in a Web Worker, and Chromium refuses to start a Worker
 * from a file:// page. Material's offline plugin would load a shim from unpkg.com for that;
 * this stands in for it. On file:// pages only, `Worker` becomes a hidden same-origin
 * iframe that loads the worker's script with a <script> tag (which file:// allows): the
 * page's postMessage dispatches a "message" event in the frame, and the frame's postMessage
 * dispatches one on this object. The search worker needs nothing more (it imports no other
 * script for an English index). Over http(s) the browser's own Worker is used.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:") return;

  class FrameWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this._queue = [];
      this._ready = false;
      const frame = document.createElement("iframe");
      frame.hidden = true;
      frame.setAttribute("aria-hidden", "true");
      (document.body || document.documentElement).appendChild(frame);
      const scope = frame.contentWindow;
      this._scope = scope;
      scope.postMessage = (data) => this._receive(data);
      const script = scope.document.createElement("script");
      script.src = new URL(String(url), location.href).href;
      script.onload = () => {
        this._ready = true;
        this._queue.splice(0).forEach((data) => this._deliver(data));
      };
      script.onerror = () => this._fail("cannot load " + script.src);
      scope.document.head.appendChild(script);
    }

    postMessage(data) {
      if (this._ready) this._deliver(data);
      else this._queue.push(data);
    }

    terminate() {
      const frame = this._scope && this._scope.frameElement;
      if (frame) frame.remove();
      this._scope = null;
    }

    _deliver(data) {
      if (!this._scope) return;
      this._scope.dispatchEvent(new this._scope.MessageEvent("message", { data: data }));
    }

    _receive(data) {
      const event = new MessageEvent("message", { data: data });
      if (typeof this.onmessage === "function") this.onmessage(event);
      this.dispatchEvent(event);
    }

    _fail(message) {
      const event = new ErrorEvent("error", { message: message });
      if (typeof this.onerror === "function") this.onerror(event);
      this.dispatchEvent(event);
    }
  }

  window.Worker = FrameWorker;
})();
