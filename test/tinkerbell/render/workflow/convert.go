package workflow

import (
	"tinkrender/tinkerbell"
)

// Status is what the controller puts in the Workflow's status from the rendered Workflow: tasks
// with fresh IDs and every action PENDING, the global timeout, and the first task's worker as
// the agent.
type Status struct {
	GlobalTimeout int64             `json:"globalTimeout,omitempty"`
	Tasks         []tinkerbell.Task `json:"tasks,omitempty"`
	AgentID       string            `json:"agentID,omitempty"`
}

func ToStatus(wf *Workflow) Status {
	s := Status{GlobalTimeout: int64(wf.GlobalTimeout), Tasks: []tinkerbell.Task{}}
	for _, t := range wf.Tasks {
		actions := []tinkerbell.Action{}
		for _, a := range t.Actions {
			sa := tinkerbell.Action{
				ID: newULID(), Name: a.Name, Image: a.Image, Timeout: a.Timeout, Command: a.Command,
				Volumes: a.Volumes, State: "PENDING", Environment: a.Environment, Pid: a.Pid,
			}
			if a.Namespaces.Network != "" || a.Namespaces.PID != "" {
				sa.Namespaces = &tinkerbell.ActionNamespaces{Network: a.Namespaces.Network, PID: a.Namespaces.PID}
			}
			actions = append(actions, sa)
		}
		s.Tasks = append(s.Tasks, tinkerbell.Task{
			ID: newULID(), Name: t.Name, AgentID: t.WorkerAddr, Volumes: t.Volumes, Environment: t.Environment, Actions: actions,
		})
		// Only the first task's worker: Tinkerbell runs single-task Workflows on one agent.
		if s.AgentID == "" {
			s.AgentID = t.WorkerAddr
		}
	}
	return s
}
