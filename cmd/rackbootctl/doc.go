// Command rackbootctl is the command line client of rackbootd. It talks
// to the REST API (/api/assisted-install/v2, assisted-service's v2 paths
// and JSON) and to the Kubernetes-compatible API (the ACM kinds: apply -f,
// delete -f, get, describe, wait), kubectl-style:
//
//	rackbootctl create infra-env --name lab --pull-secret-file ps.json
//	rackbootctl get hosts -w              # follows the server's host watch stream
//	rackbootctl get infra-envs -o yaml
//	rackbootctl apply -f ztp.yaml         # InfraEnv, ClusterDeployment, ... through the kube API
//	rackbootctl get agents -A -o wide
//	rackbootctl wait --for=condition=Completed aci/sno1 -n sno1 --timeout=90m
//	rackbootctl describe host node-1
//	rackbootctl approve host node-1
//	rackbootctl download discovery-ignition --infra-env ID -o discovery.ign
//	rackbootctl create cluster --name prod --version 4.16 --base-domain example.com --sno --pull-secret-file ps.json
//	rackbootctl install prod -w           # 409 lists the failing validations; -w: a progress bar per host
//	rackbootctl download credentials kubeconfig --cluster prod -o kubeconfig
//
// The server is --url, RACKBOOT_URL or the config file (default
// http://127.0.0.1:8080); the admin token is --token, RACKBOOT_TOKEN, the
// config file or <data_dir>/admin-token. main only wires the process
// (signals, streams, environment) to package cli; the HTTP clients are
// package client (REST) and package kube (the Kubernetes-compatible API),
// the tables package output.
package main
