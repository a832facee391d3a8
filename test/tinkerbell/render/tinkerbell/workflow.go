package tinkerbell

// Workflow is tinkerbell.org/v1alpha1 Workflow: only what rendering reads of its spec.
type Workflow struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`

	Spec WorkflowSpec `json:"spec,omitempty"`
}

type WorkflowSpec struct {
	Disabled    *bool             `json:"disabled,omitempty"`
	TemplateRef string            `json:"templateRef,omitempty"`
	HardwareRef string            `json:"hardwareRef,omitempty"`
	HardwareMap map[string]string `json:"hardwareMap,omitempty"`
}

// WorkflowState is an action's or a Workflow's state: PENDING, RUNNING, SUCCESS, FAILED, …
type WorkflowState string

// Task is a status task, as the controller writes it after rendering.
type Task struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	AgentID     string            `json:"agentID"`
	Actions     []Action          `json:"actions"`
	Volumes     []string          `json:"volumes,omitempty"`
	Environment map[string]string `json:"environment,omitempty"`
}

// Action is a status action. The execution fields are the tink server's to fill in.
type Action struct {
	ID                string            `json:"id"`
	Name              string            `json:"name,omitempty"`
	Image             string            `json:"image,omitempty"`
	Timeout           int64             `json:"timeout,omitempty"`
	Command           []string          `json:"command,omitempty"`
	Volumes           []string          `json:"volumes,omitempty"`
	Pid               string            `json:"pid,omitempty"`
	Namespaces        *ActionNamespaces `json:"namespaces,omitempty"`
	Environment       map[string]string `json:"environment,omitempty"`
	State             WorkflowState     `json:"state,omitempty"`
	ExecutionStart    *Time             `json:"executionStart,omitempty"`
	ExecutionStop     *Time             `json:"executionStop,omitempty"`
	ExecutionDuration string            `json:"executionDuration,omitempty"`
	Message           string            `json:"message,omitempty"`
}

type ActionNamespaces struct {
	Network string `json:"network,omitempty"`
	PID     string `json:"pid,omitempty"`
}
