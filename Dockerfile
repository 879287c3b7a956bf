# One image, every role: the compose file (infra/docker-compose.yml) runs it as api, worker,
# scheduler and mcp services.
FROM node:20-bookworm-slim

# git: the knowledge base clones repositories.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
# The CPU build of onnxruntime ships in the package; skip its optional GPU download.
ENV ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data
VOLUME /data
USER node
ENTRYPOINT ["node", "bin/aiops.js"]
CMD ["api"]
