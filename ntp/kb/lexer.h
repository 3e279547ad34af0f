// ntp/kb/lexer.h: the tokenizer and token cursor shared by the .nl, .nlt and .pl
// readers and parse_atom (internal to the parsers; not part of the public API).
//
// Names are runs of anything but blanks and the punctuation `( ) , : % < >`;
// a `.` belongs to a name when another name character follows it (FB15k
// relations contain dots), so the `.` ending `p(a, b).` is its own token.
// Columns count UTF-8 code points, 1-based.
//
// Input must be text: well-formed UTF-8 (the Countries KB names `são_tomé`),
// with no control characters but tab, CR and LF, and a byte order mark at
// most at the start. Anything else (a NUL byte, an escape, a stray Latin-1
// byte) is an error at its line and column rather than part of a name, since
// it almost always means a binary, UTF-16 or Latin-1 file read by mistake.
// CRLF line ends read as LF.
#pragma once

#include "ntp/kb/kb.h"
#include "ntp/kb/parse.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace ntp {
namespace lex {

// Throws ParseError at the first byte of `text` that is not text as above
// (line numbers start at `first_line`), or if `text` is too long for int
// line and column numbers.
void check_text(const std::string& text, const std::string& file, int first_line);

// Bytes of a UTF-8 byte order mark at the start of `text` (3 or 0).
std::size_t bom_size(const std::string& text);

// Code points in text[from, to): the column distance between two bytes.
int code_points(const std::string& text, std::size_t from, std::size_t to);
// Whether `c` can be part of a name outside quotes (a '.' only when a name
// character follows it).
bool is_name_char(char c);

enum class TokenKind { Name, LParen, RParen, Comma, Dot, Implies, Less, Greater, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;                  // a quoted name's without its quotes
  bool quoted = false;               // a name in double quotes: never a variable or a slot
  int line = 0, column = 0;          // where the token starts
  int end_line = 0, end_column = 0;  // just after its last character
};

// Splits `text` into tokens, the last one End. Line numbers start at
// `first_line`. With `comments`, `%` starts a comment that runs to the end
// of the line. Throws ParseError on a character that cannot start a token,
// and on input that check_text refuses.
std::vector<Token> tokenize(const std::string& text, const std::string& file, int first_line, bool comments);

using ntp::is_variable_name;  // parse.h

// "'abc'", "'('", "end of file", ...: a token as an error message shows it.
std::string describe(const Token& t);

// Reads a token list front to back, throwing ParseErrors that point at the
// offending token, or, when that token is on a later line than the last one
// read (or is End), just after the last token read: a missing `.` or `)` is
// reported where it was due.
class Cursor {
 public:
  Cursor(std::vector<Token> tokens, std::string file);

  const Token& peek() const { return tokens_[pos_]; }
  const Token& peek_after() const { return tokens_[pos_ + 1 < tokens_.size() ? pos_ + 1 : pos_]; }  // one further
  const Token& next();
  bool at_end() const { return peek().kind == TokenKind::End; }
  bool accept(TokenKind kind);  // consumes the next token if it is of `kind`
  // Consumes a token of `kind`, or fails with "<problem> (expected <expected>)",
  // where the problem describes what was found instead.
  const Token& expect(TokenKind kind, const std::string& expected);
  // Fails at the next token: "found X (expected <expected>)", with the
  // special cases of a missing token at the end of a line and a stray `)`.
  [[noreturn]] void fail_unexpected(const std::string& expected) const;
  // Fails at the next token (or after the last one, as above) with `what`.
  [[noreturn]] void fail_here(const std::string& what) const;
  [[noreturn]] void fail_at(const Token& at, const std::string& what) const;
  const std::string& file() const { return file_; }
  // True when the next token is End or starts on a later line than the last one read.
  bool at_line_end() const;

 private:
  std::vector<Token> tokens_;
  std::string file_;
  std::size_t pos_ = 0;
};

// The syntax of one atom, `name(arg, ..., arg)`, before its names are
// resolved; at most kMaxArity arguments.
struct RawAtom {
  Token predicate;
  std::vector<Token> args;
};
RawAtom parse_raw_atom(Cursor& cursor);

// Resolves names against a vocabulary without changing it: a name missing
// from the vocabulary gets the id it will have once commit() interns the new
// names in order (or -1 under NewSymbols::Refuse). This is what keeps a file
// that fails to parse from adding anything to the KB.
class PendingSymbols {
 public:
  PendingSymbols(const Vocabulary& vocab, NewSymbols policy) : vocab_(vocab), policy_(policy) {}
  int lookup(const std::string& name);
  void commit(Vocabulary& vocab) const;

 private:
  const Vocabulary& vocab_;
  NewSymbols policy_;
  std::vector<std::string> new_names_;
  std::unordered_map<std::string, int> new_ids_;
};

// Whole contents of a stream; of a file, throwing ParseError naming the path
// if it cannot be opened. Reading stops early, after the chunk holding a NUL
// byte or past check_text's size limit: check_text refuses such input anyway.
std::string read_all(std::istream& in);
std::string read_file(const std::string& path);

bool has_extension(const std::string& path, const std::string& ext);

// The value of a token such as `20` (a copy count), or -1 unless it is a
// positive decimal integer; values above INT_MAX read as INT_MAX.
int parse_positive_int(const std::string& text);

}  // namespace lex
}  // namespace ntp
