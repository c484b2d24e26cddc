# syntax=docker/dockerfile:1
# One image for every way the service runs; the command picks the process:
#   node dist/main.js                     everything in one process (the default, like `npm start`)
#   node dist/command-service/main.js     the HTTP API            (npm run start:command)
#   node dist/projection-service/main.js  the projections         (npm run start:projection)
#   node dist/task-service/main.js        the background tasks    (npm run start:task)
# See docs/distributed.md and docker-compose.yml.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary; these build it from source where that is not possible.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# The repository's .npmrc points node-gyp at this machine's Node headers; the image has its own.
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: the lock omits other platforms' optional builds (see README), which `npm ci` refuses.
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json main.ts ./
COPY app app
COPY command-service command-service
COPY projection-service projection-service
COPY task-service task-service
COPY shared shared
# The web console (served under /ui by the one-process service): Vite builds it into dist/ui.
COPY console console
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
# MALLOC_ARENA_MAX=2: glibc gives each thread that allocates (the projection thread, SQLite's,
# libuv's) an arena of its own, up to 8 per core, and keeps their freed memory; two hold RSS down
# (README, "Every core: the projection thread"; `npm start` sets the same).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=7766 \
    DATA_DIR=/data \
    KAFKAJS_NO_PARTITIONER_WARNING=1 \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 7766
# Liveness; orchestrators should gate traffic on GET /readyz (see docker-compose.yml).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||7766)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM reaches node directly (exec form), which shuts down gracefully.
CMD ["node", "dist/main.js"]
