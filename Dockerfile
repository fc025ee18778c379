# The arena server: `negotiation-platform` is the entry point, `serve mcp` over HTTP on port 8000 the
# default command (compose.yaml gives each process its own). See docs/deploy.md.

FROM python:3.12-slim AS wheels
WORKDIR /src
COPY pyproject.toml README.md ./
COPY negotiation_platform ./negotiation_platform
COPY transports ./transports
COPY plugins ./plugins
# Every distribution of the repository and all their dependencies, as wheels for the final stage.
RUN pip wheel --no-cache-dir --wheel-dir /wheels \
    ".[mcp,a2a,view,postgres]" ./transports/mcp ./transports/a2a ./plugins/coin_games ./plugins/adasociety

FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN --mount=type=bind,from=wheels,source=/wheels,target=/wheels \
    pip install --no-index --find-links /wheels \
    "negotiation-platform[mcp,a2a,view,postgres]" negotiation-platform-coin-games negotiation-platform-adasociety \
    && useradd --system --uid 10001 --user-group --home-dir /srv/arena --create-home arena
USER arena
WORKDIR /srv/arena
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
ENTRYPOINT ["negotiation-platform"]
CMD ["serve", "mcp", "--transport", "http", "--host", "0.0.0.0", "--port", "8000"]
