package main

import "github.com/obaudit/obaudit/internal/upstreamtest"

func upstreamDir() string { return upstreamtest.Dir() }
