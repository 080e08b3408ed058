# syntax=docker/dockerfile:1
#
# The telco command in a container. Its default command serves the mock
# (telcotest, the in-memory fake of the service) on port 8080 of every
# interface, so that CI jobs and compose networks can reach it by host name:
#
#   docker build -t telco .
#   docker run --rm -p 8080:8080 telco
#
# Arguments after the image name are appended to `telco mock --addr
# 0.0.0.0:8080`, for example --account-sid and --token. To run another
# command, replace the entrypoint: docker run --entrypoint /telco telco version
#
# The final stage is FROM scratch: the static binary, CA certificates (for
# the CLI's HTTPS calls) and an empty /tmp, nothing else; it runs as nobody.
# goreleaser builds the `release` stage from the binaries it has already
# built (see .goreleaser.yaml); `docker build .` builds from source.

# A supported Go, so that the standard library has its latest security
# fixes; `docker build` pulls the newest patch of this minor version.
ARG GO_VERSION=1.26

# Files are the same on every platform, so this stage runs on the builder's.
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS toolchain
RUN mkdir -p /rootfs/etc/ssl/certs /rootfs/tmp \
 && chmod 1777 /rootfs/tmp \
 && cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/

# Cross-compiles for the target platform: CGO_ENABLED=0 makes a static
# binary that needs no libc in the scratch image.
FROM toolchain AS build
ARG TARGETOS TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags="-s -w" -o /out/telco ./cmd/telco

FROM scratch AS runtime
COPY --from=toolchain /rootfs/ /
USER 65534:65534
EXPOSE 8080
ENTRYPOINT ["/telco", "mock", "--addr", "0.0.0.0:8080"]

# goreleaser's image (dockers_v2, --target=release): its build context holds
# the binary it built for each platform at $TARGETPLATFORM/telco.
FROM runtime AS release
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/telco /telco

# The default target: the binary built from source above.
FROM runtime
COPY --from=build /out/telco /telco
