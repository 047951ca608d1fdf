# Build stage: compiles TypeScript and builds better-sqlite3's native module against this image's Node.
# No `# syntax=` line: BuildKit's built-in frontend builds this file, so nothing but the base image (from a mirror
# where Docker Hub is out of reach) and the npm and Debian package sources is fetched.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# better-sqlite3 is compiled here against the image's own Node headers (/usr/local/include/node), instead of
# downloading a prebuilt binary or the headers from the internet.
ENV npm_config_build_from_source=true npm_config_nodedir=/usr/local
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY connectors ./connectors
# Production modules only; of better-sqlite3's build only the native module itself stays (no objects, sources,
# static library or test extension).
RUN npm run build && npm prune --omit=dev \
  && cd node_modules/better-sqlite3 \
  && mv build/Release/better_sqlite3.node /tmp/ && rm -rf build deps src \
  && mkdir -p build/Release && mv /tmp/better_sqlite3.node build/Release/

# Runtime stage: only the compiled code, production dependencies and example configs; runs as a non-root user.
# Mount the config at /etc/supply-sync/config.yaml with server.host: 0.0.0.0 and state.path under /var/lib/supply-sync.
# `demo` keeps its state in /app/state, a link to the same volume: /app itself stays read-only for the node user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
# `docker run -p 8080:8080 supply-sync demo` is reached from the host: the demo listens on every interface here.
ENV SUPPLY_SYNC_DEMO_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY config ./config
RUN mkdir -p /var/lib/supply-sync && chown node:node /var/lib/supply-sync && ln -s /var/lib/supply-sync /app/state
USER node
VOLUME ["/var/lib/supply-sync"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:8080/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/supply-sync.js"]
CMD ["run", "--config", "/etc/supply-sync/config.yaml"]
