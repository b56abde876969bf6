# The image deploy/deployment.yaml names (wmap:0.1.0): wmap with its dependencies, run as a
# non-root user on a read-only root filesystem. Build: docker build -t wmap:0.1.0 .
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY workloadmap ./workloadmap
COPY catalog ./catalog
COPY cli ./cli
# Wheels of wmap and of everything it depends on, built once; the final stage installs only those.
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links /wheels workloadmap \
    && rm -rf /wheels \
    && python -m compileall -q /usr/local/lib/python3.11/site-packages/workloadmap
# Bytecode is compiled above: with a read-only root filesystem nothing is written at run time.
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["wmap"]
CMD ["serve", "--all-namespaces", "--listen", "0.0.0.0:8080"]
