"""The page templates are compiled once per server: the shared Jinja bytecode cache (dpviz.server.templating)."""

import jinja2
import pytest

from dpviz.serve import templating


def _env(templates, cache):
    env = jinja2.Environment(loader=jinja2.DictLoader(templates), enable_async=False)
    env.bytecode_cache = cache
    return env


def test_a_second_environment_reuses_the_compiled_template_and_sees_changes():
    cache = templating.MemoryBytecodeCache()
    compiled = []
    real = jinja2.Environment.compile

    def counting_compile(self, *args, **kwargs):
        compiled.append(args[1] if len(args) > 1 else kwargs.get("name"))
        return real(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jinja2.Environment, "compile", counting_compile)
        assert _env({"t": "{{ x }}!"}, cache).get_template("t").render(x=1) == "1!"
        assert _env({"t": "{{ x }}!"}, cache).get_template("t").render(x=2) == "2!"
        assert compiled == ["t"]  # compiled once, then loaded from the cache
        # A changed source (same name) is compiled again, never served stale.
        assert _env({"t": "<{{ x }}>"}, cache).get_template("t").render(x=3) == "<3>"
        assert compiled == ["t", "t"]


def test_environments_that_compile_differently_do_not_share():
    sync = jinja2.Environment()
    asyn = jinja2.Environment(enable_async=True)
    assert templating.cache_for(sync) is not templating.cache_for(asyn)
    assert templating.cache_for(sync) is templating.cache_for(jinja2.Environment())


def test_install_gives_voila_exporters_the_shared_cache():
    from voila.exporter import VoilaExporter

    templating.install()
    templating.install()  # idempotent
    env = VoilaExporter(template_name="lab")._create_environment()
    assert isinstance(env.bytecode_cache, templating.MemoryBytecodeCache)


def test_pages_wait_for_a_slow_kernel_start_rather_than_render_empty():
    """30 kernels starting at once on 2 cores took over Voilà's default 60 s: those pages came without their lesson
    (the error hidden by show_tracebacks=false). voila.json gives a kernel 10 minutes to start."""
    import json

    from dpviz.lessons import NOTEBOOK_DIR

    config = json.loads((NOTEBOOK_DIR / "voila.json").read_text())
    assert config["VoilaExecutor"]["startup_timeout"] >= 600
