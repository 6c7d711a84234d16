// Command compose_check loads compose files the way `docker compose` v2 does (compose-go's
// project loader: interpolation, normalisation, consistency checks) and prints the resolved
// project as JSON. A file compose would refuse makes it print the reason and exit 1.
//
//	go run . [--profile NAME ...] FILE...
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	var files, profiles []string
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		if args[i] == "--profile" && i+1 < len(args) {
			profiles = append(profiles, args[i+1])
			i++
			continue
		}
		files = append(files, args[i])
	}
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "usage: compose_check [--profile NAME ...] FILE...")
		os.Exit(2)
	}
	opts, err := cli.NewProjectOptions(files,
		cli.WithWorkingDirectory(filepath.Dir(files[0])),
		cli.WithOsEnv,
		cli.WithDotEnv,
		cli.WithProfiles(profiles),
		cli.WithInterpolation(true),
		cli.WithResolvedPaths(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
	)
	if err != nil {
		fail(err)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := json.MarshalIndent(project, "", "  ")
	if err != nil {
		fail(err)
	}
	fmt.Println(string(out))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
