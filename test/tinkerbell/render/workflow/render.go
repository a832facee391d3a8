package workflow

import (
	"bytes"
	"fmt"
	"text/template"
)

// maxRenderBytes is Tinkerbell's cap on a rendered Template (256 KiB).
const maxRenderBytes = 256 * 1024

// renderTemplate is text/template with missingkey=error (a missing map key fails the render
// rather than printing "<no value>"), the function map, and output capped at maxRenderBytes.
func renderTemplate(name, text string, data interface{}) ([]byte, error) {
	t, err := template.New(name).Option("missingkey=error").Funcs(funcMap()).Parse(text)
	if err != nil {
		return nil, err
	}
	w := &cappedBuffer{limit: maxRenderBytes}
	if err := t.Execute(w, data); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

// cappedBuffer refuses a write that would take it past limit; text/template then fails with the
// writer's own error.
type cappedBuffer struct {
	buf   bytes.Buffer
	limit int
}

func (w *cappedBuffer) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.limit {
		return 0, fmt.Errorf("rendered template exceeds %d bytes", w.limit)
	}
	return w.buf.Write(p)
}
