# The Tidewatch distribution image (docs/image.md).
#
#   docker build -t tidewatch .
#   docker run -d --name tidewatch -v /var/run/docker.sock:/var/run/docker.sock tidewatch
#
# That is the Watchtower form, and the image's defaults keep it working: root, a writable filesystem.
# The least-privilege form (a non-root user with the socket's group, a read-only root filesystem,
# no-new-privileges, no capabilities) is in docs/security.md and tested the same way.
#
# NODE_IMAGE is the base of both stages: Node 24 LTS (docs/node.md). The default, Debian's slim Node
# image, is glibc like the machines the tests run on, so the native-free dependencies behave the same;
# Alpine would save ~40 MB but changes libc under a process whose job is to keep containers alive.
# Machines that cannot pull from Docker Hub build the same file on a local stand-in:
# scripts/node-base-image.sh.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------- build: compile, then keep production deps
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-assets.mjs ./scripts/
COPY core ./core
COPY contracts ./contracts
COPY plugins ./plugins
COPY server ./server
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 # Typings, source maps and package docs ship in many packages and are never read at run time:
 # about half of the production install (docs/image.md, "Size").
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) -exec rm -f {} + \
 # So do packages' own test suites, examples and benchmarks (a package root or a scoped one) and
 # MQTT.js's browser bundles.
 && find node_modules -maxdepth 3 -type d \( -name test -o -name tests -o -name __tests__ -o -name example -o -name examples -o -name benchmark -o -name benchmarks \) -prune -exec rm -rf {} + \
 && rm -rf node_modules/mqtt/dist

# ---------------------------------------------------------------- the image
FROM ${NODE_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY bin ./bin
# What notifications already announced survives a restart here (docs/notifications.md, "No repeats");
# mount a volume on /data to keep it across a new container too. Writable by any --user, and the one
# writable place besides a tmpfs on /tmp when the root filesystem is read-only (docs/security.md).
RUN mkdir -m 1777 /data
ENV NODE_ENV=production \
    TIDEWATCH_HEARTBEAT_FILE=/tmp/tidewatch.heartbeat \
    TIDEWATCH_DATA_DIR=/data
# `tidewatch=true` marks the container as Tidewatch itself (self-update, docs/interface.md §1).
LABEL tidewatch="true" \
      org.opencontainers.image.title="Tidewatch" \
      org.opencontainers.image.description="Keeps running containers on their newest image, safely" \
      org.opencontainers.image.source="https://github.com/tidewatch/tidewatch" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
EXPOSE 8080
# Healthy while the service's heartbeat is fresh and its engine answers (docs/image.md, "Health").
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["node", "/app/bin/tidewatch.js", "--health-check"]
# Node is PID 1 on purpose: the service handles SIGTERM itself (docs/stopping.md) and starts no
# child processes that would need reaping.
STOPSIGNAL SIGTERM
# No V8 flags here: bin/tidewatch.js sets them itself, the same for every way of starting it
# (docs/performance.md#v8-settings).
ENTRYPOINT ["node", "/app/bin/tidewatch.js"]
