"""A minimal shell and fragment for pool tests that need a template render but no templates."""

from __future__ import annotations

from renderkit.browser import Shell

__all__ = ["PLAIN", "RED"]

#: A shell whose renderer puts the fragment in a root sized to the capture.
PLAIN = Shell(
    name="plain",
    head="<style>body{margin:0}</style><script>window.__rk={render:(h,w,hh)=>"
    "{const r=document.getElementById('rk-root');r.style.width=w+'px';"
    "r.style.height=hh+'px';r.innerHTML=h;return {ok:true}}}</script>",
)
#: A fragment filling the capture with pure red.
RED = "<div style='width:100%;height:100%;background:#ff0000'></div>"
