// Loads the browser engine's three plain scripts (static/analysis.js, matching.js, engine.js)
// into this Node process as the browser does, one after the other in one global scope, and
// returns what they define: { RulesAnalysis, RulesMatching, RulesEngine }.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const STATIC = path.join(__dirname, "..", "..", "static");
const FILES = ["analysis.js", "matching.js", "engine.js"];

function loadEngine(folder = STATIC) {
  for (const name of FILES) {
    const file = path.join(folder, name);
    vm.runInThisContext(fs.readFileSync(file, "utf-8"), { filename: file });
  }
  return { RulesAnalysis: globalThis.RulesAnalysis, RulesMatching: globalThis.RulesMatching,
    RulesEngine: globalThis.RulesEngine };
}

module.exports = { loadEngine };
