#include "share_flag.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ringside::apps {
namespace {

TEST(ParseShare, TakesKOfN) {
  std::string error;
  const std::optional<load::LoadShare> share = parse_share("3/4", error);
  ASSERT_TRUE(share) << error;
  EXPECT_EQ(share->index, 3u);
  EXPECT_EQ(share->of, 4u);
  ASSERT_TRUE(parse_share("0/1", error)) << error;
}

TEST(ParseShare, RefusesWhatIsNoPartOfASplit) {
  for (std::string_view text : {"3/2", "2/2", "0/0", "a/b", "-1/2", "1/-2", "1", "1/", "/2", "",
                                "1/2/3", " 1/2", "1/2 ", "+1/2", "1.0/2", "0/99999999999999999999"}) {
    std::string error;
    EXPECT_FALSE(parse_share(text, error)) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
  std::string error;
  parse_share("3/2", error);
  EXPECT_NE(error.find("0 to N-1"), std::string::npos) << error;
  parse_share("0/0", error);
  EXPECT_NE(error.find("N must be"), std::string::npos) << error;
}

TEST(ShareOf, PartsAddUpExactlyWithRemaindersFirst) {
  for (std::uint64_t total : {0ull, 1ull, 2ull, 7ull, 50ull, 1001ull, 18446744073709551615ull}) {
    for (unsigned of : {1u, 2u, 3u, 7u, 64u}) {
      std::uint64_t sum = 0;
      std::uint64_t previous = ~std::uint64_t{0};
      for (unsigned index = 0; index < of; ++index) {
        const std::uint64_t part = share_of(total, {index, of});
        EXPECT_LE(part, previous) << total << " " << index << "/" << of;  // lowest K get more
        EXPECT_LE(part - total / of, 1u);
        previous = part;
        sum += part;
      }
      EXPECT_EQ(sum, total) << total << " split " << of << " ways";
    }
  }
  EXPECT_EQ(share_of(7, {0, 3}), 3u);
  EXPECT_EQ(share_of(7, {1, 3}), 2u);
  EXPECT_EQ(share_of(7, {2, 3}), 2u);
}

TEST(ApplyShare, SplitsConnectionsRequestsAndRateAndNamesThePart) {
  load::LoadConfig config;
  config.connections = 5;
  config.requests = 101;
  config.rate = 1000;
  ASSERT_EQ(apply_share(config, {1, 2}), "");
  EXPECT_EQ(config.connections, 2u);
  EXPECT_EQ(config.requests, 50u);
  EXPECT_DOUBLE_EQ(config.rate, 500);
  EXPECT_EQ(config.tag, "share-1-of-2");
  ASSERT_TRUE(config.share);
  EXPECT_EQ(config.share->index, 1u);
  EXPECT_EQ(config.share->of, 2u);

  load::LoadConfig tagged;
  tagged.tag = "gen-a";
  tagged.rate = 0;  // as fast as possible stays so
  ASSERT_EQ(apply_share(tagged, {0, 3}), "");
  EXPECT_EQ(tagged.tag, "gen-a");
  EXPECT_EQ(tagged.rate, 0);
  EXPECT_EQ(tagged.connections, 17u);  // the default 50: 17, 17, 16
  EXPECT_EQ(tagged.requests, 0u);      // no -n: still none
}

TEST(ApplyShare, RefusesAPartWithNoConnectionOrNoRequest) {
  load::LoadConfig few;
  few.connections = 2;
  const std::string error = apply_share(few, {2, 3});
  EXPECT_EQ(error.rfind("--share 2/3: ", 0), 0u) << error;
  EXPECT_NE(error.find("give -c at least 3"), std::string::npos) << error;
  EXPECT_EQ(few.connections, 2u);  // untouched

  load::LoadConfig counted;
  counted.connections = 4;
  counted.requests = 3;
  const std::string no_requests = apply_share(counted, {3, 4});
  EXPECT_NE(no_requests.find("give -n at least 4"), std::string::npos) << no_requests;
}

}  // namespace
}  // namespace ringside::apps
