# Memory Wall: the API and the explorer under uvicorn, as an unprivileged user.
#   docker build -t memory-wall .
#   docker run --rm -p 8000:8000 -e WEB_CONCURRENCY=2 memory-wall
FROM python:3.11-slim

# PYTHONPATH puts the copied sources ahead of the copy pip puts in site-packages, whatever
# starts Python (uvicorn, `python -m app`, `memwall`), so static/ and templates/ are found
# next to app/.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONPATH=/srv/memory-wall \
    WEB_CONCURRENCY=1 \
    MEMWALL_EMBED_ORIGINS="*"

WORKDIR /srv/memory-wall

# Only what runs: the package, its static files and templates, and the pinned versions.
COPY pyproject.toml README.md constraints.txt ./
COPY app ./app
COPY static ./static
COPY templates ./templates

# The runtime dependencies only (no test extra), within the versions the suite last ran with.
# No compiler is needed: every dependency installs from a wheel (checked for linux x86_64).
RUN pip install --no-cache-dir --root-user-action=ignore -c constraints.txt . \
    && python -m compileall -q app \
    && groupadd --system --gid 10001 memwall \
    && useradd --system --uid 10001 --gid memwall --no-create-home --shell /usr/sbin/nologin memwall

USER 10001:10001
EXPOSE 8000

# slim has no curl: ask /healthz with the standard library.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]

# uvicorn reads the number of worker processes from WEB_CONCURRENCY when --workers is not given.
# asyncio's event loop rather than uvloop: under saturation uvloop served some requests seconds
# late (see README, Deployment); asyncio kept every one within twice the median, at the same
# throughput.
CMD ["uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8000", "--no-server-header", "--loop", "asyncio"]
