package workflow

import (
	"errors"
	"fmt"

	"github.com/distribution/reference"
	"gopkg.in/yaml.v3"
)

// StageError is a failure with the step that failed: "render" (text/template), "parse" (the YAML)
// or "validate" (the rules). Error() is Tinkerbell's own text.
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string { return e.Err.Error() }
func (e *StageError) Unwrap() error { return e.Err }

const errBadLength = "name cannot be empty or have more than 200 characters: %s"

// Render renders a Template's data for a Workflow named id over data, then parses and validates
// it, failing as Tinkerbell does at each step.
func Render(id, text string, data map[string]interface{}) (*Workflow, []byte, error) {
	out, err := renderTemplate("workflow-template", text, data)
	if err != nil {
		return nil, nil, &StageError{"render", fmt.Errorf("failed to parse template with ID %s: err: %w", id, err)}
	}
	var wf Workflow
	if err := yaml.Unmarshal(out, &wf); err != nil {
		// Tinkerbell puts the whole rendered text in the error.
		return nil, out, &StageError{"parse", fmt.Errorf("parsing yaml data: err: %w, content: %s", err, out)}
	}
	if err := validate(&wf); err != nil {
		return nil, out, &StageError{"validate", fmt.Errorf("validating workflow template: %w", err)}
	}
	for _, t := range wf.Tasks {
		if t.WorkerAddr == "" {
			return nil, out, &StageError{"validate", fmt.Errorf("failed to render template, empty hardware address (%v)", data)}
		}
	}
	return &wf, out, nil
}

// validate is Tinkerbell's whole rule set: names 1–199 bytes, unique tasks, unique actions within
// a task, images that parse as references. A task with no actions, a zero timeout or an unknown
// key are not its concern.
func validate(wf *Workflow) error {
	if !nameLengthOK(wf.Name) {
		return fmt.Errorf(errBadLength, wf.Name)
	}
	if len(wf.Tasks) == 0 {
		return errors.New("template must have at least one task defined")
	}
	tasks := map[string]bool{}
	for _, t := range wf.Tasks {
		if !nameLengthOK(t.Name) {
			return fmt.Errorf(errBadLength, t.Name)
		}
		if tasks[t.Name] {
			return fmt.Errorf("two tasks in a template cannot have same name (%s)", t.Name)
		}
		tasks[t.Name] = true
		actions := map[string]bool{}
		for _, a := range t.Actions {
			if !nameLengthOK(a.Name) {
				return fmt.Errorf(errBadLength, a.Name)
			}
			if _, err := reference.ParseNormalizedNamed(a.Image); err != nil {
				return fmt.Errorf("invalid action image (%s): %v", a.Image, err)
			}
			if actions[a.Name] {
				return fmt.Errorf("two actions in a task cannot have same name: %s", a.Name)
			}
			actions[a.Name] = true
		}
	}
	return nil
}

// nameLengthOK: Tinkerbell's bound is strict, so a 200-byte name fails too.
func nameLengthOK(s string) bool { return len(s) > 0 && len(s) < 200 }
