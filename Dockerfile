# gpukb on Python 3.11, the only version durable-rules 2.0.28 works on.
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends gcc make && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine engine
COPY server server
RUN pip install --no-cache-dir .
COPY kb kb
COPY rules rules
ENV GPUKB_KB=/app/kb GPUKB_RULES=/app/rules PORT=8000
# serve as an unprivileged user; its home holds the private cache (~/.cache/gpukb: KB copies, snapshots)
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin gpukb
USER gpukb
EXPOSE 8000
CMD ["sh", "-c", "gpukb serve --host 0.0.0.0 --port ${PORT} --workers 2 --threads 8 --request-timeout 30"]
