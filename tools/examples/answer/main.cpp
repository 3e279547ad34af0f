// tools/examples/answer/main.cpp: a program that embeds ntp. It loads a
// model, answers a query with variables and shows each answer's best proof.
// usage: answer MODEL "locatedIn(palau, X)" [TOP]
#include <ntp/ntp.h>

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL QUERY [TOP]\n", argv[0]);
    return 2;
  }
  try {
    const ntp::Reasoner reasoner = ntp::Reasoner::load(argv[1]);
    const int top = argc > 3 ? std::stoi(argv[3]) : 5;
    for (const ntp::Answer& answer : reasoner.answer(argv[2], top)) {
      std::printf("%.4f  %s\n", answer.score, answer.atom.c_str());
      for (const ntp::Step& step : answer.best_proof.steps) std::printf("      %s", ntp::to_text(step).c_str());
    }
  } catch (const std::exception& e) {  // every ntp error says what and where
    std::fprintf(stderr, "answer: %s\n", e.what());
    return 1;
  }
  return 0;
}
