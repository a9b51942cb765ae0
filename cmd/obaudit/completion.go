package main

import (
	"slices"

	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/schemas"
	"github.com/spf13/cobra"
)

// flagCompletions are the values shell completion offers for a flag, by
// name, wherever a command defines it: one table, so run, check and
// preflight offer the same agents, scenarios, engines and cells.
func flagCompletions() map[string]func() []string {
	return map[string]func() []string{
		"agent":    func() []string { return domains.Default().AgentIDs() },
		"scenario": scenarioIDs,
		"engine":   schemas.Engines,
		"fault": func() []string {
			out := make([]string, len(preflight.Faults))
			for i, f := range preflight.Faults {
				out[i] = string(f)
			}
			return out
		},
		"lane": func() []string { return nil }, // none offered
	}
}

// scenarioIDs are the scenarios the default pack's agents are registered
// for, sorted.
func scenarioIDs() []string {
	var out []string
	for _, a := range domains.Default().Agents {
		for _, s := range a.Scenarios {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}

// registerCompletions attaches flagCompletions to every command in the tree
// that defines one of those flags and has no completion of its own.
func registerCompletions(c *cobra.Command) {
	for name, values := range flagCompletions() {
		if c.Flags().Lookup(name) == nil {
			continue
		}
		if _, ok := c.GetFlagCompletionFunc(name); ok {
			continue
		}
		c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return values(), cobra.ShellCompDirectiveNoFileComp
		})
	}
	for _, sub := range c.Commands() {
		registerCompletions(sub)
	}
}
