"""What every page the pool opens is denied: network paths that would bypass the egress proxy.

The egress proxy sees HTTP(S) and WebSocket traffic only. WebRTC gathers ICE candidates over
UDP straight from the browser (STUN/TURN to any address, loopback included), and
WebTransport speaks QUIC over UDP; neither passes a proxy. Chromium's
``--webrtc-ip-handling-policy=disable_non_proxied_udp`` flag stops WebRTC's UDP (see
``_process``), but a remote browser (``cdp_url``) does not take our flags, so every context
also runs :data:`LOCKDOWN_SCRIPT` first: renders and screenshots never need WebRTC,
WebTransport or media capture.
"""

from __future__ import annotations

__all__ = ["LOCKDOWN_SCRIPT"]

# Runs before any page script in every frame of a context (iframes included). The
# constructors are configurable properties of the global object, so deleting them leaves no
# reference behind; `typeof RTCPeerConnection` is then "undefined", as in a browser built
# without WebRTC. Workers are not reached by init scripts: the launch flags cover them.
LOCKDOWN_SCRIPT = """(() => {
  const denied = /^(webkit)?(RTC|MediaStream)|^WebTransport|^PeerConnection$/;
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    if (denied.test(name)) {
      try { delete globalThis[name]; } catch (e) {}
    }
  }
  if (globalThis.navigator) {
    for (const name of ["mediaDevices", "getUserMedia", "webkitGetUserMedia"]) {
      try {
        Object.defineProperty(Navigator.prototype, name, {value: undefined, configurable: false});
      } catch (e) {}
    }
  }
})();"""
