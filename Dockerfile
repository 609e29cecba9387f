# SEV API image: one image for every role.
#   all-in-one (API + workers):  node dist/src/main.js            (default CMD)
#   API only:                    node dist/src/main.js --role=api
#   worker only:                 node dist/workers/main.js
#
# Build:  docker build -t sev-api .
#         docker build --build-arg INSTALL_CHROMIUM=true -t sev-api .   (renders pages that need
#         JavaScript, options.render; without it the image runs, and rendering answers 503)

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------
# Build stage: install every dependency, compile TypeScript, then drop dev deps.
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app

# Dependency layer first so it is cached until the lockfile changes.
COPY package.json package-lock.json ./
# --ignore-scripts: the prepare script compiles, and the sources are not copied yet.
RUN npm ci --no-audit --no-fund --ignore-scripts

# Sources (what is left after .dockerignore), then compile to dist/.
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -f dist/.tsbuildinfo \
 && npm cache clean --force

# ---------------------------------------------------------------------------
# Runtime stage: production node_modules, compiled output and the JSON schemas.
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG INSTALL_CHROMIUM=false

# Debian's Chromium at /usr/bin/chromium (CHROMIUM_PATH), only when asked: it adds some 300 MB.
RUN if [ "$INSTALL_CHROMIUM" = "true" ]; then \
      apt-get update && apt-get install -y --no-install-recommends chromium && rm -rf /var/lib/apt/lists/*; \
    fi

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    WORKER_METRICS_PORT=9464

WORKDIR /app

# Files stay owned by root (read-only for the app); the process runs as `node`.
# The app resolves schemas/ from the repo root, i.e. /app/schemas next to /app/dist.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/schemas ./schemas

USER node

# 8080: API (PORT) with /livez, /readyz, /metrics; 9464: worker metrics (WORKER_METRICS_PORT).
EXPOSE 8080 9464

# The slim image has no curl, so probe with node. /livez is tried on PORT first (API and
# all-in-one); if nothing listens there (worker-only container) WORKER_METRICS_PORT is tried.
# A non-2xx answer fails at once: no fallback.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const ps=[process.env.PORT||8080,process.env.WORKER_METRICS_PORT||9464];(async()=>{for(const p of ps){let r;try{r=await fetch('http://127.0.0.1:'+p+'/livez',{signal:AbortSignal.timeout(4000)})}catch{continue}process.exit(r.ok?0:1)}process.exit(1)})()"]

CMD ["node", "dist/src/main.js"]
