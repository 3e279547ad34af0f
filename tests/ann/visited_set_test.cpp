// tests/ann/visited_set_test.cpp: the epoch-stamped visited set forgets its
// marks on clear(), including across the wrap of its 16-bit epoch.
#include "ann/visited_set.h"

#include <doctest/doctest.h>

TEST_CASE("VisitedSet marks, forgets, and survives epoch wrap-around") {
  ann::VisitedSet visited(50);
  CHECK(visited.capacity() == 50);
  bool ok = true;
  for (int round = 0; round < 140000 && ok; ++round) {  // more than 2 * 65,535 clears
    visited.clear();
    for (int i = 0; i < 50; ++i) ok = ok && !visited.contains(i);
    const int a = round % 50, b = (round * 7 + 3) % 50;
    ok = ok && visited.insert(a) && !visited.insert(a) && visited.contains(a);
    if (b != a) ok = ok && visited.insert(b) && visited.contains(b);
  }
  CHECK(ok);
}
