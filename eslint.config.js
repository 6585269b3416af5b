// The JS linter (npx eslint, run by .ci/run): ESLint's recommended rules on every script, and
// on the browser engine's three files one rule of our own, `rulesajeon/shared-numbers`: no
// number but those listed below. Every other number the engine uses is a value of the search
// contract (app/search/contract.py), which the client index ships; tests/test_engine_literals.py
// runs this rule.
"use strict";
const js = require("@eslint/js");

// The numbers the engine files may write, and why each is not a contract value.
const ALLOWED_NUMBERS = new Map([
  [0, "nothing, none, the first"],
  [1, "one: the next, the last, a single one"],
  [0xAC00, "U+AC00 가, the first precomposed Hangul syllable"],
  [0xD7A3, "U+D7A3 힣, the last precomposed Hangul syllable"],
  [588, "Hangul syllables per initial consonant: 21 medial vowels × 28"],
  [28, "Hangul syllables per medial vowel: 27 final consonants and none"],
]);

const sharedNumbers = {
  meta: {
    type: "problem",
    docs: { description: "numbers come from the client index's contract, not the code" },
    messages: {
      literal: "{{value}} is not Unicode arithmetic, 0 or 1: make it a value of the search " +
        "contract (app/search/contract.py) and read it from the client index",
    },
    schema: [],
  },
  create(context) {
    return {
      Literal(node) {
        if (typeof node.value === "number" && !ALLOWED_NUMBERS.has(node.value)) {
          context.report({ node, messageId: "literal", data: { value: node.raw } });
        }
      },
    };
  },
};

const browser = {
  window: "readonly", document: "readonly", fetch: "readonly", URLSearchParams: "readonly",
  AbortController: "readonly", setTimeout: "readonly", clearTimeout: "readonly",
  localStorage: "readonly", navigator: "readonly", matchMedia: "readonly",
  location: "readonly", URL: "readonly", HTMLElement: "readonly", Element: "readonly", console: "readonly",
};

module.exports = [
  { ignores: ["node_modules/", "bench/lighthouse/", ".venv/", "templates/"] },
  js.configs.recommended,
  {
    files: ["static/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      // The engine's files are plain scripts: each defines one global the next ones read.
      globals: { ...browser, RulesAnalysis: "readonly", RulesMatching: "readonly",
        RulesEngine: "readonly" },
    },
    rules: {
      "no-redeclare": ["error", { builtinGlobals: false }],
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
  {
    files: ["static/analysis.js", "static/matching.js", "static/engine.js"],
    plugins: { rulesajeon: { rules: { "shared-numbers": sharedNumbers } } },
    rules: { "rulesajeon/shared-numbers": "error" },
  },
  {
    files: ["tests/node/**/*.js", "eslint.config.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "commonjs",
      globals: { process: "readonly", globalThis: "readonly", console: "readonly",
        __dirname: "readonly" },
    },
  },
];
