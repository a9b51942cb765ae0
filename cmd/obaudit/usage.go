package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// strictCommands makes every command that only groups subcommands (the
// root, ledger, export, completion, help) refuse what it does not know with
// a usage error (exit 64) instead of printing help and succeeding: an
// unknown subcommand is `unknown command "verfy" for "obaudit ledger"` with
// a did-you-mean suggestion, and a missing one names the choices. Unknown
// flags get the same suggestion.
func strictCommands(root *cobra.Command, g *globals) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
			c.Args = unknownSubcommand
			c.RunE = func(cmd *cobra.Command, args []string) error {
				return usagef("%s needs a command: %s (see %s --help)", cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", "), cmd.CommandPath())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	root.SetFlagErrorFunc(suggestFlag)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.RunE = func(cmd *cobra.Command, args []string) error {
				target, rest, err := cmd.Root().Find(args)
				if err != nil || target == nil || len(rest) > 0 {
					if target == nil || len(rest) == 0 {
						return usagef("unknown help topic %q%s", strings.Join(args, " "), didYouMean(closest(args[0], subcommandNames(cmd.Root()))))
					}
					return &usageErr{unknownSubcommand(target, rest)}
				}
				return target.Help()
			}
		case "completion":
			for _, sh := range c.Commands() {
				jsonScript(sh, g)
			}
		}
	}
}

// jsonScript makes a completion command (cobra's are RunE commands)
// honour --json: the script is carried in one JSON document rather than
// printed bare.
func jsonScript(c *cobra.Command, g *globals) {
	f := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if !g.json {
			return f(cmd, args)
		}
		desc := true
		if v, err := cmd.Flags().GetBool("no-descriptions"); err == nil && v {
			desc = false
		}
		var b strings.Builder
		var err error
		switch root := cmd.Root(); cmd.Name() {
		case "bash":
			err = root.GenBashCompletionV2(&b, desc)
		case "zsh":
			if desc {
				err = root.GenZshCompletion(&b)
			} else {
				err = root.GenZshCompletionNoDesc(&b)
			}
		case "fish":
			err = root.GenFishCompletion(&b, desc)
		case "powershell":
			if desc {
				err = root.GenPowerShellCompletionWithDesc(&b)
			} else {
				err = root.GenPowerShellCompletion(&b)
			}
		default:
			return usagef("--json: no completion script for %s", cmd.Name())
		}
		if err != nil {
			return err
		}
		return writeJSON(cmd, map[string]any{
			"mediaType": "application/vnd.obaudit.completion+json;version=1",
			"shell":     cmd.Name(),
			"script":    b.String(),
		})
	}
}

// unknownSubcommand is the Args of a grouping command: any argument is an
// unknown command.
func unknownSubcommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if c == nil {
		return fmt.Errorf("unknown command %q", args[0])
	}
	return fmt.Errorf("unknown command %q for %q%s", args[0], c.CommandPath(), didYouMean(closest(args[0], subcommandNames(c))))
}

// closest returns the names nearest typed: those at the smallest edit
// distance (at most 2), else those typed is a prefix of.
func closest(typed string, names []string) []string {
	best, out := 3, []string(nil)
	for _, n := range names {
		switch d := levenshtein(strings.ToLower(typed), strings.ToLower(n)); {
		case d < best:
			best, out = d, []string{n}
		case d == best:
			out = append(out, n)
		}
	}
	if out != nil {
		return out
	}
	for _, n := range names {
		if typed != "" && strings.HasPrefix(n, typed) {
			out = append(out, n)
		}
	}
	return out
}

// subcommandNames lists c's available subcommands, in cobra's (sorted)
// order.
func subcommandNames(c *cobra.Command) []string {
	var out []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			out = append(out, sub.Name())
		}
	}
	return out
}

// didYouMean renders suggestions as `; did you mean "x"?` (or "x" or
// "y"?), or nothing.
func didYouMean(s []string) string {
	if len(s) == 0 {
		return ""
	}
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return "; did you mean " + strings.Join(q, " or ") + "?"
}

// suggestFlag adds a did-you-mean to cobra's "unknown flag: --x".
func suggestFlag(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	name, _, _ = strings.Cut(name, "=")
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	near := closest(name, names)
	if len(near) == 0 {
		return err
	}
	for i := range near {
		near[i] = "--" + near[i]
	}
	return fmt.Errorf("%w%s", err, didYouMean(near))
}

// levenshtein is the edit distance between a and b (bytes).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
