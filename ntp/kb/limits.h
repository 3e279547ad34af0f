// ntp/kb/limits.h: the largest inputs ntp accepts, shared by the parsers and the
// model file reader.
//
// The parsers refuse what the model file cannot hold, so that anything that
// trains also saves and loads; the reader refuses the same sizes, so that a
// damaged count is an error before it is an allocation. The benchmark KBs
// are far below every limit (binary atoms, rules of one or two body atoms,
// at most a few dozen copies of a template).
#pragma once

namespace ntp {

constexpr int kMaxArity = 64;                // arguments of one atom (fact, query or rule atom)
constexpr int kMaxBodyAtoms = 64;            // body atoms of one rule template
constexpr int kMaxTemplateCopies = 1000000;  // rules instantiated from one template
constexpr int kMaxTemplateSymbols = 1024;    // distinct variables, and distinct slots, of one template
constexpr int kMaxTableRows = 1 << 28;       // rows of an embedding table (KB symbols plus rule slots)
constexpr int kMaxDim = 1 << 16;             // embedding dimension

}  // namespace ntp
