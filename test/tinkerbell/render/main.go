// tink-render renders a Workflow's Template as Tinkerbell's controller does, for tests.
//
//	stdin:  {"template": "<Template spec.data>", "workflow": {Workflow}, "hardware": {Hardware}}
//	stdout: {"ok": true, "rendered": "<yaml>", "tasks": [status tasks], "globalTimeout": n, "agentID": "…"}
//	     or {"ok": false, "stage": "render"|"parse"|"validate"|"input", "error": "…", "condition": "…"}
//
// "error" is the error Tinkerbell's render returns; "condition" is the message it then writes in
// the Workflow's TemplateRenderedSuccess condition. "input" is this tool's own refusal of a request
// Tinkerbell would never get this far with. It exits 0 whenever it answered.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"tinkrender/tinkerbell"
	"tinkrender/workflow"
)

type request struct {
	Template string          `json:"template"`
	Workflow json.RawMessage `json:"workflow"`
	Hardware json.RawMessage `json:"hardware"`
}

type answer struct {
	OK            bool              `json:"ok"`
	Stage         string            `json:"stage,omitempty"`
	Error         string            `json:"error,omitempty"`
	Condition     string            `json:"condition,omitempty"`
	Rendered      *string           `json:"rendered,omitempty"`
	Tasks         []tinkerbell.Task `json:"tasks,omitempty"`
	GlobalTimeout *int64            `json:"globalTimeout,omitempty"`
	AgentID       *string           `json:"agentID,omitempty"`
}

func main() {
	a := run(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(a); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func refuse(format string, args ...interface{}) answer {
	return answer{Stage: "input", Error: fmt.Sprintf(format, args...)}
}

func run(in io.Reader) answer {
	var req request
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		return refuse("request: %v", err)
	}
	var wf tinkerbell.Workflow
	if err := json.Unmarshal(req.Workflow, &wf); err != nil {
		return refuse("workflow: %v", err)
	}
	// No Hardware: as Tinkerbell with an empty hardwareRef, the zero Hardware.
	var hw tinkerbell.Hardware
	if len(req.Hardware) > 0 && string(req.Hardware) != "null" {
		if err := json.Unmarshal(req.Hardware, &hw); err != nil {
			return refuse("hardware: %v", err)
		}
	}
	// Tinkerbell reads the Hardware the Workflow names, and stops before rendering without it.
	if wf.Spec.HardwareRef != "" && hw.Name != wf.Spec.HardwareRef {
		return refuse("the Workflow's hardwareRef is %q but the Hardware given is %q: Tinkerbell would not render (hardware not found)", wf.Spec.HardwareRef, hw.Name)
	}
	data, refErr := workflow.Data(wf, hw)
	rendered, text, err := workflow.Render(wf.Name, req.Template, data)
	if err != nil {
		var se *workflow.StageError
		errors.As(err, &se)
		a := answer{Stage: se.Stage, Error: err.Error(), Condition: fmt.Sprintf("error rendering template: %v", errors.Join(refErr, err))}
		if text != nil {
			s := string(text)
			a.Rendered = &s
		}
		return a
	}
	s := string(text)
	st := workflow.ToStatus(rendered)
	return answer{OK: true, Rendered: &s, Tasks: st.Tasks, GlobalTimeout: &st.GlobalTimeout, AgentID: &st.AgentID}
}
