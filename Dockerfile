# One image, every role: the compose file (infra/docker-compose.yml) runs it as api, worker and
# mcp services.
FROM node:24-bookworm-slim

# git: the knowledge base clones repositories.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# No dependency's install script runs (the image's npm predates package.json's allowScripts):
# onnxruntime-node ships its CPU library and never downloads GPU ones.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data
# The data folder belongs to the user the service runs as: a new named volume starts as a copy of
# it, owner included, so the knowledge base and the vector store can write there.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
ENTRYPOINT ["node", "bin/aiops.js"]
CMD ["api"]
