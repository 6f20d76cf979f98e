from django.urls import path

from social import views

app_name = "social"

urlpatterns = [
    path("friends/", views.friends, name="friends"),
    path("friends/preferences/", views.preferences, name="preferences"),
    path("u/<str:username>/follow/", views.follow, name="follow"),
    path("u/<str:username>/unfollow/", views.unfollow, name="unfollow"),
    path("u/<str:username>/challenge/", views.challenge_new, name="challenge_new"),
    path("challenges/<int:challenge_id>/", views.challenge_detail, name="challenge"),
    path("challenges/<int:challenge_id>/alive/", views.challenge_alive, name="challenge_alive"),
    path("challenges/<int:challenge_id>/accept/", views.challenge_accept, name="challenge_accept"),
    path(
        "challenges/<int:challenge_id>/decline/", views.challenge_decline, name="challenge_decline"
    ),
    path("challenges/<int:challenge_id>/cancel/", views.challenge_cancel, name="challenge_cancel"),
]
