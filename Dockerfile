# The karp-drift container image: for in-cluster Jobs (deploy/wait-job.yaml, deploy/upgrade-job.yaml, the Argo CD
# PostSync hook) and CI runners that run containers. Node 24 (what users run), the bundled CLI and the package files
# it reads at run time (templates/, and scenarios/ and vendor/ for `karp-drift sandbox`), no node_modules (the bundle
# carries its dependencies), run as the image's unprivileged `node` user (uid 1000). Built and pushed by
# .github/workflows/image.yml; test/e2e/image.test.ts runs the CLI from exactly the files copied here.
FROM node:24-alpine AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:24-alpine
WORKDIR /opt/karp-drift
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/dist ./dist
COPY --from=build /src/templates ./templates
COPY --from=build /src/scenarios ./scenarios
COPY --from=build /src/vendor ./vendor
COPY --from=build /src/LICENSE ./LICENSE
ENV NODE_ENV=production
USER 1000:1000
ENTRYPOINT ["node", "/opt/karp-drift/dist/bin.cjs"]
CMD ["--help"]
