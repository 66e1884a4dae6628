# gpukb on a current CPython. `pip install .` runs gpukb's build backend, which compiles durable-rules
# from its sdist with gpukb's patch (patches/) into the package: gcc, libc headers and patch are needed.
FROM python:3.13-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev patch \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 gpukb
WORKDIR /app
COPY pyproject.toml README.md MANIFEST.in ./
COPY build_backend build_backend
COPY patches patches
COPY engine engine
COPY server server
COPY kb kb
COPY rules rules
# a non-editable install: the KB, the rules and the patched engine travel inside the package
RUN pip install --no-cache-dir . && python build_backend/durable_build.py --check
USER gpukb
ENV PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('PORT', '8000'), timeout=4)"
# threaded workers, bounded request time (README, "Serving"); ~/.cache/gpukb of the user holds the KB copies and snapshots
CMD ["sh", "-c", "exec gpukb serve --host 0.0.0.0 --port ${PORT} --workers 2 --threads 8 --request-timeout 30"]
