#!/usr/bin/env node
import { buildRicochetApp } from "../lib/infra/ricochet-app.js";

buildRicochetApp().app.synth();
