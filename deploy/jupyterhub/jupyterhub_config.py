"""dpviz behind JupyterHub on one machine: The Littlest JupyterHub (TLJH), or a plain ``jupyterhub -f`` on a VM.

This file is the recipe, and the real-hub test (``tests/browser/test_jupyterhub.py``) runs it: what the test
passes is what a school gets. Use it

- with TLJH: ``sudo cp jupyterhub_config.py /opt/tljh/config/jupyterhub_config.d/dpviz.py`` then
  ``sudo tljh-config reload`` (TLJH keeps its own authenticator, spawner and proxy; this file adds dpviz's parts);
- with a plain hub: ``jupyterhub -f jupyterhub_config.py`` (add an authenticator and, for a real class, a spawner
  that runs each student as their own user: JupyterHub's default ``LocalProcessSpawner`` with system users, or
  ``systemdspawner`` for memory limits).

What it sets, each with the reason:

- every student's server is **lessons-only**: Voilà and dpviz's jupyter-server extension
  (:mod:`dpviz.serve.extension`: one plotly.js per page, nothing fetched from outside, kernels freed with their
  page, Voilà's executor settings), no JupyterLab and no terminal, opening on the lessons' landing page;
  ``DPVIZ_HUB_JUPYTERLAB=1`` turns JupyterLab on instead (a copy of the lessons in each home, placed by the spawn
  hook; then a student can run any code in their own server and open a terminal there);
- the **idle culler** as a hub-managed service: a server with no activity for ``DPVIZ_HUB_CULL_TIMEOUT`` seconds
  (default 3600, longer than a lesson) is stopped, checked every ``DPVIZ_HUB_CULL_EVERY`` seconds; each server
  reports its activity every ``DPVIZ_HUB_ACTIVITY_INTERVAL`` seconds (default 300; it must be well under the
  culler's timeout, or a student who is moving sliders is culled);
- the **class view** as the hub-managed service ``dpviz-class`` (:mod:`dpviz.serve.hubclass`), its teacher's view
  at ``/services/dpviz-class/`` for hub admins and members of the group ``DPVIZ_HUB_TEACHER_GROUP`` (default
  ``teachers``); students' kernels send their answers to it directly (``DPVIZ_CLASS``), identified by their
  server's own hub token;
- ``DPVIZ_HUB_SHARED=1``: instead of a server per student, **one shared lesson server**, ``dpviz serve
  --hub-service``, as the hub-managed service ``dpviz-lessons`` behind the hub's login: a student costs what they
  cost under ``dpviz serve`` (one forked kernel); its class view is its own, its teacher's view at
  ``/services/dpviz-lessons/dpviz/class`` for the same teachers;
- **memory**: ``c.Spawner.mem_limit`` from dpviz's measured cost per student (honoured by spawners that can
  enforce it: systemdspawner under TLJH, KubeSpawner; the local process spawner ignores it).

Every ``DPVIZ_HUB_*`` environment variable read here has a default fit for a class; the test sets them to
short times and loopback ports.
"""

import os
import sys

from dpviz.serve import extension
from dpviz.serve.classview import hub_environment

c = get_config()  # noqa: F821  (defined by JupyterHub's config loader)


def setting(name: str, default: str) -> str:
    return os.environ.get("DPVIZ_HUB_" + name, default)


CULL_TIMEOUT = int(setting("CULL_TIMEOUT", "3600"))
CULL_EVERY = int(setting("CULL_EVERY", "300"))
ACTIVITY_INTERVAL = int(setting("ACTIVITY_INTERVAL", "300"))
if not 0 < ACTIVITY_INTERVAL <= CULL_TIMEOUT // 3:
    raise ValueError(f"DPVIZ_HUB_ACTIVITY_INTERVAL = {ACTIVITY_INTERVAL} is not allowed: must be in [1, "
                     f"{CULL_TIMEOUT // 3}] (a third of DPVIZ_HUB_CULL_TIMEOUT), or the culler stops servers in use")
JUPYTERLAB = setting("JUPYTERLAB", "0") == "1"
#: One shared lesson server for every student (dpviz serve as a hub service, behind the hub's login) instead of a
#: server per student: dpviz serve's cost per student (one forked kernel), no work kept between sessions.
SHARED = setting("SHARED", "0") == "1"
LESSONS_PORT = int(setting("LESSONS_PORT", "10102"))
CLASS_SIZE = int(setting("CLASS_SIZE", "30"))  # shared: kernels pre-heated for this many students ...
# ... on these lessons (DPVIZ_HUB_LESSONS=05,08; default every lesson)
#: Under TLJH (its hub runs from /opt/tljh/hub) the culler and the memory limit are TLJH's own settings
#: (tljh-config set services.cull.timeout 3600; tljh-config set limits.memory 600M): this file leaves them to it.
TLJH = sys.prefix.startswith("/opt/tljh/")
CLASS_PORT = int(setting("CLASS_PORT", "10101"))
CLASS_HOST = setting("CLASS_HOST", "127.0.0.1")  # where students' kernels reach the class view
CLASS_PRIVACY = setting("CLASS_PRIVACY", "local")
REPORT_EPSILON = float(setting("CLASS_REPORT_EPSILON", "2"))
TEACHER_GROUP = setting("TEACHER_GROUP", "teachers")

# ---------------------------------------------------------------------------------------- every student's server
# (the single-user server's own command line: lessons-only, or JupyterLab with the lessons in the home)
if JUPYTERLAB:
    c.Spawner.default_url = "/lab/tree/" + extension.LESSONS_FOLDER + "/index.ipynb"
    c.Spawner.args = ["--ServerApp.jpserver_extensions=" + repr({"dpviz.serve.extension": True})]

    def place_lessons(spawner):
        """Copy the installed lessons into the student's home (:func:`dpviz.serve.extension.place_lessons`)."""
        home = getattr(spawner, "home_dir", None)
        uid = gid = None
        if not home:  # LocalProcessSpawner: the student's system account
            import pwd

            entry = pwd.getpwnam(spawner.user.name)
            home, uid, gid = entry.pw_dir, entry.pw_uid, entry.pw_gid
        extension.place_lessons(home, uid=uid, gid=gid)

    c.Spawner.pre_spawn_hook = place_lessons
else:
    c.Spawner.cmd = ["dpviz", "singleuser"]  # jupyterhub-singleuser --config=<dpviz's lessons-only configuration>
# Kernels forked from a process each server starts with the lessons' modules imported (a lesson's kernel is ready in
# a fraction of a second); DPVIZ_HUB_FORK_KERNELS=0 starts each kernel afresh (a second slower, ~20 MB less).
if setting("FORK_KERNELS", "1") == "0":
    c.Spawner.args.append("--DpvizExtension.fork_kernels=False")
    c.Spawner.default_url = "/voila/render/index.ipynb"

c.Spawner.environment.update({
    "JUPYTERHUB_ACTIVITY_INTERVAL": str(ACTIVITY_INTERVAL),
    # the class view's address for the kernels, and the protection in force (dpviz.panels.classfeed)
    "DPVIZ_CLASS": hub_environment(f"http://{CLASS_HOST}:{CLASS_PORT}/services/dpviz-class/api/", CLASS_PRIVACY,
                                   REPORT_EPSILON),
})
# One student's server and its lesson kernel: 120-190 MB (proportional set size, measured by the real-hub test; see
# the docs' page "dpviz behind JupyterHub"), more while a heavy panel computes. The limit leaves room for two
# lessons open at once; the guarantee is what one lesson needs.
if not TLJH:
    c.Spawner.mem_limit = setting("MEM_LIMIT", "600M")
    c.Spawner.mem_guarantee = setting("MEM_GUARANTEE", "300M")
c.Spawner.start_timeout = 120  # a class arriving at once on a small machine
c.Spawner.http_timeout = 60
c.JupyterHub.last_activity_interval = ACTIVITY_INTERVAL

# ---------------------------------------------------------------------------------------------------- who logs in
# Without a rule of who may log in, JupyterHub 5+ refuses everybody (403 after login). Every user the
# authenticator accepts may use the lessons; restrict with c.Authenticator.allowed_users or a group instead.
c.Authenticator.allow_all = True

# --------------------------------------------------------------------------------------------------- the services
# (appended, updated: under TLJH this file is read after TLJH's own settings, which it must keep)
if not SHARED:  # a server per student: one class view that all their kernels reach
    c.JupyterHub.services.extend([
        {
            "name": "dpviz-class",
            "url": f"http://{CLASS_HOST}:{CLASS_PORT}",
            "command": [sys.executable, "-m", "dpviz.serve.hubclass", f"--privacy={CLASS_PRIVACY}",
                        f"--report-epsilon={REPORT_EPSILON:g}", f"--teacher-group={TEACHER_GROUP}",
                        *([f"--class-dir={setting('CLASS_DIR', '')}"] if setting("CLASS_DIR", "") else [])],
            "oauth_no_confirm": True,
        },
    ])
    c.JupyterHub.load_roles.extend([
        # (the class view itself needs no scope: the hub tells it who a token or a login belongs to, with their admin
        # flag and groups, for any valid token)
        {
            # teachers open the class view's page (admins can already)
            "name": "dpviz-teacher",
            "scopes": ["access:services!service=dpviz-class"],
            "groups": [TEACHER_GROUP],
        },
    ])
else:
    # Every student opens the lessons on one dpviz serve, a hub-managed service at /services/dpviz-lessons/, behind
    # the hub's login (each user gets the access scope below). Its class view is its own, as on one machine; its
    # teacher's view is /services/dpviz-lessons/dpviz/class, for the hub's admins and the teachers' group.
    c.JupyterHub.services.append({
        "name": "dpviz-lessons",
        "url": f"http://127.0.0.1:{LESSONS_PORT}",
        "command": [sys.executable, "-m", "dpviz.serve", "--hub-service", f"--class-size={CLASS_SIZE}",
                    f"--hub-teacher-group={TEACHER_GROUP}",
                    *([f"--lessons={setting('LESSONS', '')}"] if setting("LESSONS", "") else []),
                    f"--class-privacy={CLASS_PRIVACY}", f"--class-report-epsilon={REPORT_EPSILON:g}",
                    *([f"--class-dir={setting('CLASS_DIR', '')}/lessons"] if setting("CLASS_DIR", "") else [])],
        "oauth_no_confirm": True,
    })
    c.JupyterHub.load_roles.append({"name": "user", "scopes": ["self", "access:services!service=dpviz-lessons"]})
    c.JupyterHub.default_url = "/services/dpviz-lessons/"
if not TLJH:
    c.JupyterHub.services.append({
        "name": "idle-culler",
        "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={CULL_TIMEOUT}",
                    f"--cull-every={CULL_EVERY}"],
    })
    c.JupyterHub.load_roles.append({
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    })
c.JupyterHub.load_groups.update(
    {TEACHER_GROUP: {"users": sorted(set(filter(None, setting("TEACHERS", "").split(","))))}})
