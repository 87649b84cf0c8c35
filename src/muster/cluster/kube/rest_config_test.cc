#include "muster/cluster/kube/rest_config.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace muster::cluster::kube {
namespace {

namespace fs = std::filesystem;

class RestConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("muster-rest-config-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  // Options that read nothing from the real environment.
  RestConfigOptions Isolated() {
    RestConfigOptions o;
    o.kubeconfig_env = "";
    o.home = (dir_ / "home").string();
    o.service_account_dir = (dir_ / "sa").string();
    o.service_host = "";
    o.service_port = "";
    return o;
  }

  fs::path dir_;
};

constexpr const char* kTwoContexts = R"(apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: "https://a.example:6443/", certificate-authority: ca.crt}
- name: b
  cluster: {server: "https://b.example", insecure-skip-tls-verify: true}
users:
- name: alice
  user: {token: secret-a}
- name: bob
  user: {client-certificate-data: Y2VydA==, client-key-data: a2V5}
contexts:
- name: ctx-a
  context: {cluster: a, user: alice}
- name: ctx-b
  context: {cluster: b, user: bob}
current-context: ctx-a
)";

TEST_F(RestConfigTest, CurrentContextWithRelativeCaAndToken) {
  Write("ca.crt", "PEM");
  RestConfigOptions o = Isolated();
  o.kubeconfig = Write("config", kTwoContexts);
  std::string error;
  auto c = LoadRestConfig(o, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->server, "https://a.example:6443");
  EXPECT_EQ(c->ca_file, (dir_ / "ca.crt").string());
  EXPECT_EQ(c->token, "secret-a");
  EXPECT_FALSE(c->insecure_skip_tls_verify);
  EXPECT_TRUE(c->warnings.empty());
}

TEST_F(RestConfigTest, ContextFlagAndInlineCertificateData) {
  Write("ca.crt", "PEM");
  RestConfigOptions o = Isolated();
  o.kubeconfig = Write("config", kTwoContexts);
  o.context = "ctx-b";
  std::string error;
  auto c = LoadRestConfig(o, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->server, "https://b.example");
  EXPECT_EQ(c->cert_data, "cert");
  EXPECT_EQ(c->key_data, "key");
  EXPECT_TRUE(c->insecure_skip_tls_verify);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("insecure-skip-tls-verify"), std::string::npos);
}

TEST_F(RestConfigTest, UnknownContextNamesIt) {
  RestConfigOptions o = Isolated();
  o.kubeconfig = Write("config", kTwoContexts);
  o.context = "nope";
  std::string error;
  EXPECT_FALSE(LoadRestConfig(o, &error));
  EXPECT_NE(error.find("context \"nope\" does not exist"), std::string::npos) << error;
}

TEST_F(RestConfigTest, ExecCredentialsAreRefusedNamingTheUser) {
  RestConfigOptions o = Isolated();
  o.kubeconfig = Write("config", R"(clusters:
- name: c
  cluster: {server: "https://c"}
users:
- name: gke
  user:
    exec: {command: gke-gcloud-auth-plugin}
contexts:
- name: x
  context: {cluster: c, user: gke}
current-context: x
)");
  std::string error;
  EXPECT_FALSE(LoadRestConfig(o, &error));
  EXPECT_NE(error.find("user \"gke\": exec credentials are not supported"), std::string::npos)
      << error;
}

TEST_F(RestConfigTest, MissingAndMalformedFiles) {
  RestConfigOptions o = Isolated();
  o.kubeconfig = (dir_ / "absent").string();
  std::string error;
  EXPECT_FALSE(LoadRestConfig(o, &error));
  EXPECT_NE(error.find("does not exist"), std::string::npos) << error;
  o.kubeconfig = Write("bad", "clusters: [\n");
  EXPECT_FALSE(LoadRestConfig(o, &error));
  EXPECT_NE(error.find("invalid YAML"), std::string::npos) << error;
}

TEST_F(RestConfigTest, KubeconfigListMergesFirstWins) {
  RestConfigOptions o = Isolated();
  const std::string first = Write("one", R"(clusters:
- name: c
  cluster: {server: "https://first"}
current-context: x
)");
  const std::string second = Write("two", R"(clusters:
- name: c
  cluster: {server: "https://second"}
users:
- name: u
  user: {tokenFile: token}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: y
)");
  Write("token", "t\n");
  o.kubeconfig_env = first + ":" + (dir_ / "missing").string() + ":" + second;
  std::string error;
  auto c = LoadRestConfig(o, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->server, "https://first");
  EXPECT_EQ(c->token_file, (dir_ / "token").string());
}

TEST_F(RestConfigTest, HomeThenInCluster) {
  RestConfigOptions o = Isolated();
  std::string error;
  EXPECT_FALSE(LoadRestConfig(o, &error));
  EXPECT_NE(error.find("no kubeconfig found"), std::string::npos) << error;

  Write("sa/token", "sa-token");
  Write("sa/ca.crt", "PEM");
  o.service_host = "10.0.0.1";
  o.service_port = "443";
  auto c = LoadRestConfig(o, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->server, "https://10.0.0.1:443");
  EXPECT_EQ(c->token_file, (dir_ / "sa" / "token").string());
  EXPECT_EQ(c->ca_file, (dir_ / "sa" / "ca.crt").string());

  Write("home/.kube/config", R"(clusters:
- name: c
  cluster: {server: "https://home"}
contexts:
- name: x
  context: {cluster: c}
current-context: x
)");
  c = LoadRestConfig(o, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->server, "https://home");
}

}  // namespace
}  // namespace muster::cluster::kube
