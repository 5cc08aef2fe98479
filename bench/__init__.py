"""Benchmarks of the Memory Wall server, run by `make bench` (``python -m bench``).

Each benchmark is a function ``run(settings) -> figures`` registered by name in
``bench.__main__.BENCHMARKS``. It prints readable tables as it goes and returns its figures as
plain JSON-able data; the runner writes them to ``<out>/<name>.json``. A benchmark that has a
target lists it under ``figures["checks"]`` as ``{"name", "target", "value", "passed"}`` so the
runner can summarise every verdict at the end.

    api    server-side time of GET /api/v1/view in-process, cold and warm, against /healthz,
           and where the cold path's time goes (validation, model, orjson, gzip, framework)
    load   wrk against a uvicorn process on 127.0.0.1: /healthz, the view over a mix of
           configurations, and the view with a distinct configuration per request
    browser  slider input to drawn chart in headless Chromium, and bytes per visit
    soak   the server's resident memory before and after minutes of that load
"""
