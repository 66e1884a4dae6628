# gpukb on a current CPython; durable-rules is built from its sdist with gpukb's patch (patches/).
FROM python:3.13-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev patch \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 gpukb
WORKDIR /app
COPY patches patches
COPY scripts/build_durable.py scripts/build_durable.py
RUN pip install --no-cache-dir setuptools wheel \
 && python scripts/build_durable.py --python python --cache /tmp/gpukb-wheels \
 && rm -rf /tmp/gpukb-wheels
COPY pyproject.toml README.md ./
COPY engine engine
COPY server server
COPY kb kb
COPY rules rules
# a non-editable install: the KB and rules travel inside the package
RUN pip install --no-cache-dir . && python scripts/build_durable.py --python python --check
USER gpukb
ENV PORT=8000
EXPOSE 8000
CMD ["sh", "-c", "exec gpukb serve --host 0.0.0.0 --port ${PORT}"]
