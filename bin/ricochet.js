#!/usr/bin/env node
// This repository's launcher: runs the TypeScript CLI through tsx, so the tests and a checkout
// need no build step. The package's `bin` is the bundle dist/bin/ricochet.mjs instead.
import { register } from "tsx/esm/api";

register();
await import("./ricochet.ts");
