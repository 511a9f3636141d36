package main

func runTUI(root, lang string) int { return 0 }
