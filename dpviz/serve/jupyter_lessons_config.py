"""A lessons-only single-user server: ``jupyterhub-singleuser --config=<this file>`` (dpviz.serve.extension).

Voilà and dpviz's extension, and nothing a student does not need: no JupyterLab, no classic notebook, no
terminal (a shell on the school's machine). The lessons are the installed package's: every student sees the
installed version, nothing is copied. The landing page is the server's default URL.

A school that wants JupyterLab as well starts the servers without this file (see deploy/jupyterhub/README and the
docs page "dpviz behind JupyterHub"): then each student can also run any code in their own server, and terminals
are open unless ``c.ServerApp.terminals_enabled = False``.
"""

from dpviz.lessons import NOTEBOOK_DIR

c = get_config()  # noqa: F821  (traitlets' config loader defines it)

c.ServerApp.jpserver_extensions = {
    "dpviz.serve.extension": True,
    "voila.server_extension": True,
    "jupyterlab": False,
    "notebook": False,
    "notebook_shim": False,
    "jupyter_lsp": False,
    "jupyter_server_terminals": False,
}
c.ServerApp.terminals_enabled = False
c.ServerApp.root_dir = str(NOTEBOOK_DIR)
c.ServerApp.default_url = "/voila/render/index.ipynb"
# each kernel message leaves at once, as under dpviz serve (dpviz/serve/connection.py)
c.ServerApp.kernel_websocket_connection_class = "dpviz.serve.connection.NoDelayConnection"
# A kernel whose page went without its beacon (a crashed tab, a phone that slept) ends after half an hour without
# a message, as under dpviz serve; the hub's idle culler then stops the server itself.
c.MappingKernelManager.cull_idle_timeout = 1800
c.MappingKernelManager.cull_interval = 60
c.MappingKernelManager.cull_connected = True
c.MappingKernelManager.cull_busy = True
