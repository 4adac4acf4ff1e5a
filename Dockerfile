# syntax=docker/dockerfile:1

# --- build: dev dependencies, native better-sqlite3 build, TypeScript compile ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source: its install would otherwise download a prebuilt binary (prebuild-install).
ENV npm_config_build_from_source=better-sqlite3
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

# --- runtime: production dependencies only, non-root ---
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/registry.db \
    STORAGE_DIR=/data/archives
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# `npm run cli -- <command>` (CONTRACT §2): its script's first step, and the .npmrc that keeps npm's banner off stdout.
COPY --from=build /app/scripts/build-if-stale.js ./scripts/
COPY .npmrc ./
# /data/archives too, so that a named volume mounted there (docker-compose.yml) starts owned by node.
RUN mkdir -p /data/archives && chown -R node:node /data
USER node
# SQLite and the stored archives and video results live here (the only place the node user may write);
# set DATABASE_URL=postgres://... to use PostgreSQL instead.
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Run node directly (not through npm) so SIGTERM reaches the app and shutdown is graceful. The V8 flag is the
# one `npm start` sets too (docs/decisions.md, "allocation-site pretenuring"); Node refuses it in NODE_OPTIONS.
CMD ["node", "--no-allocation-site-pretenuring", "dist/src/main.js"]
