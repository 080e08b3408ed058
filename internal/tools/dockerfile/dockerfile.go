// Package dockerfile reads the repository's Dockerfile and checks the
// promises its image makes (a static telco binary on scratch or distroless,
// started as `telco mock --addr 0.0.0.0:8080`, not as root). No Docker
// engine is needed, so CI can hold the file to them on any machine.
package dockerfile

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Instruction is one Dockerfile instruction, continuation lines joined.
type Instruction struct {
	Cmd  string // upper case: FROM, RUN, COPY, ...
	Args string // the rest of the line, trimmed
	Line int    // the line it starts on, from 1
}

// Stage is the instructions from one FROM to the next.
type Stage struct {
	Base, Name   string // FROM's image (or stage) and its AS name
	Instructions []Instruction
}

// Parse splits a Dockerfile into stages. Comments, parser directives and
// blank lines are dropped; a trailing backslash continues a line.
func Parse(text string) ([]Stage, error) {
	var stages []Stage
	var cur strings.Builder
	start := 0
	lines := strings.Split(text, "\n")
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cur.Len() > 0 && strings.HasPrefix(line, "#") {
			continue // comment lines inside a continued instruction are skipped
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(line, `\`) && i < len(lines)-1 {
			cur.WriteString(strings.TrimSuffix(line, `\`) + " ")
			continue
		}
		cur.WriteString(line)
		in := strings.TrimSpace(cur.String())
		cur.Reset()
		cmd, args, _ := strings.Cut(in, " ")
		inst := Instruction{Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args), Line: start}
		if inst.Cmd == "FROM" {
			st, err := parseFrom(inst)
			if err != nil {
				return nil, err
			}
			stages = append(stages, st)
			continue
		}
		if len(stages) == 0 {
			if inst.Cmd == "ARG" {
				continue // global ARGs come before the first FROM
			}
			return nil, fmt.Errorf("line %d: %s before the first FROM", start, inst.Cmd)
		}
		stages[len(stages)-1].Instructions = append(stages[len(stages)-1].Instructions, inst)
	}
	if len(stages) == 0 {
		return nil, fmt.Errorf("no FROM instruction")
	}
	return stages, nil
}

func parseFrom(in Instruction) (Stage, error) {
	var words []string
	for _, w := range strings.Fields(in.Args) {
		if !strings.HasPrefix(w, "--") { // --platform=...
			words = append(words, w)
		}
	}
	switch {
	case len(words) == 1:
		return Stage{Base: words[0]}, nil
	case len(words) == 3 && strings.EqualFold(words[1], "AS"):
		return Stage{Base: words[0], Name: words[2]}, nil
	}
	return Stage{}, fmt.Errorf("line %d: cannot read FROM %s", in.Line, in.Args)
}

// WantEntrypoint is the command the image must run: the mock, listening on
// every interface so that other containers reach it by host name.
var WantEntrypoint = []string{"telco", "mock", "--addr", "0.0.0.0:8080"}

var (
	minimalBase = regexp.MustCompile(`^(scratch|gcr\.io/distroless/static(-debian\d+)?(:[\w.-]+)?(@sha256:[0-9a-f]+)?)$`)
	goBuild     = regexp.MustCompile(`\bgo build\b`)
)

// Check lists what is wrong with the image that the Dockerfile builds for
// target (a stage name; "" for the last stage, what `docker build .`
// builds): its base must be scratch or distroless static, its ENTRYPOINT
// the exec form of WantEntrypoint with no CMD, its USER not root, and the
// binary it starts must be copied from a stage that builds ./cmd/telco
// with CGO_ENABLED=0 and -trimpath, or, for a stage that declares ARG
// TARGETPLATFORM, from $TARGETPLATFORM/telco in goreleaser's context.
func Check(stages []Stage, target string) []string {
	byName := map[string]int{}
	for i, st := range stages {
		if st.Name != "" {
			byName[strings.ToLower(st.Name)] = i
		}
	}
	idx := len(stages) - 1
	if target != "" {
		i, ok := byName[strings.ToLower(target)]
		if !ok {
			return []string{fmt.Sprintf("no stage named %q", target)}
		}
		idx = i
	}

	// The target's chain of stages, itself first, down to an image.
	var chain []Stage
	for i, seen := idx, map[int]bool{}; ; {
		if seen[i] {
			return []string{"stages form a loop"}
		}
		seen[i] = true
		chain = append(chain, stages[i])
		parent, ok := byName[strings.ToLower(stages[i].Base)]
		if !ok || parent >= i {
			break
		}
		i = parent
	}
	var problems []string
	if base := chain[len(chain)-1].Base; !minimalBase.MatchString(base) {
		problems = append(problems, fmt.Sprintf("final image is based on %q, want scratch or gcr.io/distroless/static", base))
	}

	// The nearest ENTRYPOINT, CMD and USER win; the target's own come first.
	var entry, user *Instruction
	var cmd *Instruction
	var copies []Instruction
	var targetArgs []string
	for ci, st := range chain {
		for k := len(st.Instructions) - 1; k >= 0; k-- {
			in := st.Instructions[k]
			switch in.Cmd {
			case "ENTRYPOINT":
				if entry == nil {
					entry = &st.Instructions[k]
				}
			case "CMD":
				if cmd == nil {
					cmd = &st.Instructions[k]
				}
			case "USER":
				if user == nil {
					user = &st.Instructions[k]
				}
			case "COPY", "ADD":
				copies = append(copies, in)
			case "ARG":
				if ci == 0 {
					targetArgs = append(targetArgs, strings.Fields(in.Args)...)
				}
			}
		}
	}

	var binary string
	switch {
	case entry == nil:
		problems = append(problems, "no ENTRYPOINT")
	default:
		var argv []string
		if err := json.Unmarshal([]byte(entry.Args), &argv); err != nil || len(argv) == 0 {
			problems = append(problems, fmt.Sprintf("line %d: ENTRYPOINT must be the exec form (a JSON array), got %s", entry.Line, entry.Args))
			break
		}
		binary = argv[0]
		got := append([]string{path.Base(argv[0])}, argv[1:]...)
		if strings.Join(got, "\x00") != strings.Join(WantEntrypoint, "\x00") {
			problems = append(problems, fmt.Sprintf("line %d: ENTRYPOINT runs %q, want %q", entry.Line, got, WantEntrypoint))
		}
	}
	if cmd != nil {
		problems = append(problems, fmt.Sprintf("line %d: CMD would be appended to the mock's arguments; leave it out", cmd.Line))
	}
	if user == nil {
		problems = append(problems, "no USER: the image would run as root")
	} else if u, _, _ := strings.Cut(user.Args, ":"); u == "0" || u == "root" {
		problems = append(problems, fmt.Sprintf("line %d: USER %s is root", user.Line, user.Args))
	}
	if binary != "" {
		problems = append(problems, checkBinary(stages, byName, copies, targetArgs, binary)...)
	}
	return problems
}

// checkBinary finds the COPY that puts the entrypoint's binary in place
// and checks where the binary comes from.
func checkBinary(stages []Stage, byName map[string]int, copies []Instruction, targetArgs []string, binary string) []string {
	for _, in := range copies {
		words := strings.Fields(in.Args)
		from := ""
		var paths []string
		for _, w := range words {
			if v, ok := strings.CutPrefix(w, "--from="); ok {
				from = v
			} else if !strings.HasPrefix(w, "--") {
				paths = append(paths, w)
			}
		}
		if len(paths) != 2 || path.Clean(paths[1]) != path.Clean(binary) {
			continue
		}
		src := paths[0]
		if from == "" {
			declared := false
			for _, a := range targetArgs {
				declared = declared || a == "TARGETPLATFORM"
			}
			if src != "$TARGETPLATFORM/telco" || !declared {
				return []string{fmt.Sprintf("line %d: the binary is copied from the context as %s, want $TARGETPLATFORM/telco with ARG TARGETPLATFORM (goreleaser's layout)", in.Line, src)}
			}
			return nil
		}
		i, ok := byName[strings.ToLower(from)]
		if !ok {
			return []string{fmt.Sprintf("line %d: the binary comes from %q, which is not a stage that builds it", in.Line, from)}
		}
		for _, run := range stages[i].Instructions {
			if run.Cmd != "RUN" || !goBuild.MatchString(run.Args) || !strings.Contains(run.Args, path.Clean(src)) {
				continue
			}
			var problems []string
			for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "./cmd/telco"} {
				if !strings.Contains(run.Args, want) {
					problems = append(problems, fmt.Sprintf("line %d: the go build that makes %s lacks %s", run.Line, src, want))
				}
			}
			return problems
		}
		return []string{fmt.Sprintf("line %d: stage %q has no go build that writes %s", in.Line, from, src)}
	}
	return []string{fmt.Sprintf("nothing copies the entrypoint's binary %s into the image", binary)}
}
