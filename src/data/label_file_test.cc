// Label set files: the YAML forms, synonyms from both places, and one clear error per mistake.

#include <gtest/gtest.h>

#include "data/dataset_test_support.h"
#include "parley/dataset.h"

namespace parley::data {
namespace {

class LabelFile : public ::testing::Test {
 protected:
  Result<std::shared_ptr<const LabelSet>> load(std::string_view yaml) {
    return load_label_set(dir_.write("labels.yaml", yaml));
  }
  std::string error_of(std::string_view yaml) {
    auto set = load(yaml);
    EXPECT_FALSE(set) << "accepted: " << yaml;
    return set ? "" : set.error().message;
  }
  ScratchDir dir_;
};

TEST_F(LabelFile, ReadsNamesMapsAndASynonymMap) {
  auto set = load(
      "labels:\n"
      "  - Dengue fever\n"
      "  - {name: Hepatitis C, synonyms: [HCV, Hep C]}\n"
      "  - name: Hepatitis B\n"
      "    synonyms:\n"
      "      - HBV\n"
      "synonyms:\n"
      "  breakbone fever: Dengue fever\n");
  ASSERT_TRUE(set) << set.error().message;
  const LabelSet& labels = **set;
  EXPECT_EQ(labels.labels(), (std::vector<std::string>{"Dengue fever", "Hepatitis C", "Hepatitis B"}));
  EXPECT_FALSE(labels.ordered());
  EXPECT_EQ(labels.canonical("hcv"), "Hepatitis C");
  EXPECT_EQ(labels.canonical("Hep-C"), "Hepatitis C");
  EXPECT_EQ(labels.canonical("HBV"), "Hepatitis B");
  EXPECT_EQ(labels.canonical("Breakbone Fever"), "Dengue fever");
  EXPECT_EQ(labels.find("Zika"), std::nullopt);
}

TEST_F(LabelFile, AnOrderedScaleReadsSignedNumbersAsItsSynonyms) {
  auto set = load(
      "ordered: true\n"
      "labels:\n"
      "  - {name: Negative, synonyms: ['-2']}\n"
      "  - {name: Weakly negative, synonyms: ['-1', W. Neg.]}\n"
      "  - {name: Neutral, synonyms: ['0']}\n"
      "  - {name: Weakly positive, synonyms: ['+1', W. Pos.]}\n"
      "  - {name: Positive, synonyms: ['+2']}\n");
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE((*set)->ordered());
  EXPECT_EQ((*set)->find("-1"), 1u);
  EXPECT_EQ((*set)->find("\xE2\x88\x92" "1"), 1u);  // U+2212 minus
  EXPECT_EQ((*set)->find("1"), 3u);                 // "+1" and "1" are one label
  EXPECT_EQ((*set)->find("+1"), 3u);
  EXPECT_EQ((*set)->find("w. pos"), 3u);
  EXPECT_EQ((*set)->find("2"), 4u);
}

TEST_F(LabelFile, MistakesNameTheFileAndTheEntry) {
  EXPECT_NE(error_of("labels: Dengue\n").find("`labels` must be a list"), std::string::npos);
  EXPECT_NE(error_of("labels: []\n").find("empty"), std::string::npos);
  EXPECT_NE(error_of("labelz: [A]\n").find("unknown key 'labelz'"), std::string::npos);
  EXPECT_NE(error_of("labels: [A, {name: B, synonym: [b]}]\n").find("labels entry 2: unknown key 'synonym'"),
            std::string::npos);
  EXPECT_NE(error_of("labels: [A, [B]]\n").find("labels entry 2 must be a name"), std::string::npos);
  EXPECT_NE(error_of("labels: [Dengue, dengue]\n").find("'Dengue' and 'dengue' are the same label"),
            std::string::npos);
  EXPECT_NE(error_of("labels: [A]\nsynonyms: {x: B}\n").find("synonym 'x' names 'B'"), std::string::npos);
  EXPECT_NE(error_of("labels: [A, B]\nsynonyms: {b: A}\n").find("already names 'B'"), std::string::npos);
  EXPECT_NE(error_of("labels: [A]\nordered: maybe\n").find("`ordered` must be true or false"), std::string::npos);
  EXPECT_NE(error_of("labels: [A\n").find("labels.yaml: line"), std::string::npos);
  EXPECT_NE(error_of("labels: ['!!']\n").find("no letters or digits"), std::string::npos);
  EXPECT_NE(error_of("labels: [a]\nsynonyms: {[x, y]: a}\n").find("each synonym must be a string"), std::string::npos);
  EXPECT_NE(error_of("{[x]: 1, labels: [a]}\n").find("a key must be a string"), std::string::npos);
  EXPECT_FALSE(load_label_set(dir_.path() / "missing.yaml"));
}

}  // namespace
}  // namespace parley::data
