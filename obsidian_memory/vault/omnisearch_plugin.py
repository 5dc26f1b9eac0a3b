"""What the vault's own Omnisearch plugin says about its HTTP server, so that the right port is used
without configuration, and `doctor` and `status` can say why Omnisearch does not answer.

Omnisearch keeps its settings in `<vault>/.obsidian/plugins/omnisearch/data.json`: `httpApiEnabled`
(true/false) and `httpApiPort` (a string there, e.g. "51361"). Obsidian lists the community plugins
that are turned on in `<vault>/.obsidian/community-plugins.json`. A configured port (flag,
OMNISEARCH_PORT, config.yaml) still wins; settings.load asks `discovered_port` only when none is.

Import-light (settings.load runs on every hook's path): one small JSON file read, nothing else
(without the json package: core.json_light).
"""
from __future__ import annotations

import os

from obsidian_memory.core import json_light

PLUGIN_ID = "omnisearch"
ENABLE_HTTP = "Obsidian → Settings → Omnisearch → turn on the HTTP server"
INSTALL = "Obsidian → Settings → Community plugins → Browse → Omnisearch, then " + ENABLE_HTTP[len("Obsidian → "):]
MAX_SETTINGS_BYTES = 1_000_000


class PluginState:
    """`installed`: its folder is in the vault; `enabled`: Obsidian lists it as turned on (None when
    the vault has no list); `http_enabled`, `port`: from its data.json (None when not set there)."""

    def __init__(self, installed=False, enabled=None, http_enabled=None, port=None):
        self.installed, self.enabled, self.http_enabled, self.port = installed, enabled, http_enabled, port


def plugin_folder(vault: str) -> str:
    return os.path.join(vault, ".obsidian", "plugins", PLUGIN_ID)


def read_state(vault: str) -> PluginState:
    folder = plugin_folder(vault)
    if not os.path.isdir(folder):
        return PluginState()
    data = json_light.read_json(os.path.join(folder, "data.json"), MAX_SETTINGS_BYTES)
    data = {} if isinstance(data, json_light.Unread) else data
    enabled_list = json_light.read_json(os.path.join(vault, ".obsidian", "community-plugins.json"),
                                        MAX_SETTINGS_BYTES, kind=list)
    http = data.get("httpApiEnabled")
    return PluginState(installed=True,
                       enabled=None if isinstance(enabled_list, json_light.Unread) else PLUGIN_ID in enabled_list,
                       http_enabled=http if isinstance(http, bool) else None,
                       port=_port(data.get("httpApiPort")))


def discovered_port(vault: str) -> int | None:
    """The port the vault's Omnisearch serves on (or will, once its HTTP server is turned on)."""
    return read_state(vault).port


def describe(vault: str, port: int, answering: bool) -> str:
    """One line for `doctor` and `status`: whether Omnisearch answers, and if not, what to do."""
    state = read_state(vault)
    source = ""
    if state.port is not None:
        source = (" (the vault's Omnisearch settings)" if state.port == port else
                  f" (configured; the vault's Omnisearch settings say {state.port}: remove omnisearch_port "
                  "from config.yaml and OMNISEARCH_PORT to follow them)")
    if answering:
        return f"answering on port {port}{source}"
    if not state.installed:
        why = f"the Omnisearch plugin is not installed in this vault ({INSTALL})"
    elif state.enabled is False:
        why = "the Omnisearch plugin is turned off in Obsidian (Settings → Community plugins → Omnisearch)"
    elif state.http_enabled is not True:
        why = f"the Omnisearch plugin's HTTP server is off ({ENABLE_HTTP})"
    else:
        why = "its HTTP server is on, so Obsidian is not running or has another vault open"
    return f"not answering on port {port}{source}: {why}; searches use the local index"


def _port(value) -> int | None:
    try:
        port = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return port if 0 < port < 65536 else None
