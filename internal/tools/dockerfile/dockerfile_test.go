package dockerfile

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRepositoryDockerfile holds the real Dockerfile to its promises, for
// both images it builds: `docker build .` (the last stage) and goreleaser's
// (the stage .goreleaser.yaml names with --target).
func TestRepositoryDockerfile(t *testing.T) {
	stages, err := Parse(readRepoFile(t, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`--target=([\w.-]+)`).FindStringSubmatch(readRepoFile(t, ".goreleaser.yaml"))
	if m == nil {
		t.Fatal(".goreleaser.yaml passes no --target to the image build")
	}
	for _, target := range []string{"", m[1]} {
		for _, p := range Check(stages, target) {
			t.Errorf("target %q: %s", target, p)
		}
	}
}

const good = `# syntax=docker/dockerfile:1
ARG GO_VERSION=1.26
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
COPY . .
# a comment
RUN CGO_ENABLED=0 \
    go build -trimpath -o /out/telco ./cmd/telco

FROM scratch AS runtime
USER 65534:65534
ENTRYPOINT ["/telco", "mock", "--addr", "0.0.0.0:8080"]

FROM runtime AS release
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/telco /telco

FROM runtime
COPY --from=build /out/telco /telco
`

func TestCheckGood(t *testing.T) {
	stages, err := Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != 4 || stages[0].Name != "build" || stages[0].Base != "golang:${GO_VERSION}" {
		t.Fatalf("stages = %+v", stages)
	}
	if run := stages[0].Instructions[2]; run.Cmd != "RUN" || run.Line != 7 || !strings.Contains(run.Args, "./cmd/telco") {
		t.Errorf("continued RUN = %+v, want it joined and starting on line 7", run)
	}
	for _, target := range []string{"", "release", "RELEASE"} {
		if p := Check(stages, target); len(p) != 0 {
			t.Errorf("target %q: %q", target, p)
		}
	}
}

func TestCheckFindsEachMistake(t *testing.T) {
	tests := []struct {
		name, old, new, target, want string
	}{
		{"a full OS image", "FROM scratch AS runtime", "FROM alpine:3 AS runtime", "", `based on "alpine:3"`},
		{"distroless base but not static", "FROM scratch AS runtime", "FROM gcr.io/distroless/base AS runtime", "", "based on"},
		{"shell form entrypoint", `ENTRYPOINT ["/telco", "mock", "--addr", "0.0.0.0:8080"]`, "ENTRYPOINT /telco mock --addr 0.0.0.0:8080", "", "exec form"},
		{"loopback only", `"0.0.0.0:8080"]`, `"127.0.0.1:8080"]`, "", "ENTRYPOINT runs"},
		{"another command", `"mock", `, `"version", `, "", "ENTRYPOINT runs"},
		{"no entrypoint", `ENTRYPOINT ["/telco", "mock", "--addr", "0.0.0.0:8080"]`, "", "", "no ENTRYPOINT"},
		{"a CMD", "USER 65534:65534", "USER 65534:65534\nCMD [\"--help\"]", "", "CMD would be appended"},
		{"root", "USER 65534:65534", "USER root", "", "is root"},
		{"no user", "USER 65534:65534", "", "", "no USER"},
		{"cgo left on", "RUN CGO_ENABLED=0 \\", "RUN \\", "", "lacks CGO_ENABLED=0"},
		{"not trimmed", "-trimpath ", "", "", "lacks -trimpath"},
		{"another binary copied", "COPY --from=build /out/telco /telco", "COPY --from=build /out/other /telco", "", "no go build that writes /out/other"},
		{"binary not copied", "COPY --from=build /out/telco /telco", "", "", "nothing copies"},
		{"release without TARGETPLATFORM", "ARG TARGETPLATFORM\n", "", "release", "want $TARGETPLATFORM/telco"},
		{"release copies a fixed path", "COPY $TARGETPLATFORM/telco /telco", "COPY linux/amd64/telco /telco", "release", "want $TARGETPLATFORM/telco"},
		{"unknown target", "", "", "nope", `no stage named "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Replace(good, tt.old, tt.new, 1)
			if tt.old != "" && text == good {
				t.Fatalf("test case did not change the Dockerfile")
			}
			stages, err := Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			problems := Check(stages, tt.target)
			if !strings.Contains(strings.Join(problems, "\n"), tt.want) {
				t.Errorf("problems = %q, want one containing %q", problems, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{"", "# only a comment\n", "RUN true\nFROM scratch\n", "FROM a b c d\n"} {
		if _, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) = nil error, want one", text)
		}
	}
}
